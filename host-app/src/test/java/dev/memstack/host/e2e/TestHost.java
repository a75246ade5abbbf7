package dev.memstack.host.e2e;

import dev.memstack.host.MemstackApplication;
import dev.memstack.host.plugin.PluginZips;
import dev.memstack.host.security.TestTokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.TypeExcludeFilter;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.util.FileSystemUtils;

/**
 * A real host for acceptance tests: {@link MemstackApplication} on a free port, with the three real
 * plugin zips copied into a temporary plugins folder, a temporary data folder and one admin API
 * token. Unlike {@code @SpringBootTest}, the test decides when the host stops and starts again, so
 * a restart on the same data folder can be tested. Properties go in as command-line arguments, so
 * they win over {@code application.yml} as a deployment's would, and the component scan sees the
 * main classes only (see {@link MainClassesOnly}).
 */
final class TestHost implements AutoCloseable {

  private final Path root;
  private final Map<String, String> properties = new LinkedHashMap<>();
  private ConfigurableApplicationContext context;
  private Duration lastStart = Duration.ZERO;

  private TestHost(Path root) {
    this.root = root;
    Path plugins = PluginZips.copyAllTo(root.resolve("plugins"));
    properties.put("server.port", "0");
    properties.put("memstack.plugins.dir", plugins.toString());
    properties.put("memstack.data-dir", root.resolve("data").toString());
    TestTokens.admin((name, value) -> properties.put(name, String.valueOf(value.get())));
  }

  /** A host (not started yet) in a new temporary folder named after {@code name}. */
  static TestHost create(String name) {
    try {
      return new TestHost(Files.createTempDirectory("memstack-e2e-" + name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sets one property for this and every later start. */
  TestHost with(String key, String value) {
    properties.put(key, value);
    return this;
  }

  /** Starts the host; returns when it listens. */
  TestHost start() {
    if (context != null) {
      throw new IllegalStateException("already running");
    }
    List<String> args = new ArrayList<>();
    properties.forEach((key, value) -> args.add("--" + key + "=" + value));
    long begin = System.nanoTime();
    context =
        new SpringApplicationBuilder(MemstackApplication.class)
            .initializers(
                ctx ->
                    ctx.getBeanFactory()
                        .registerSingleton(MainClassesOnly.class.getName(), new MainClassesOnly()))
            .run(args.toArray(String[]::new));
    lastStart = Duration.ofNanos(System.nanoTime() - begin);
    return this;
  }

  /** Stops the host, keeping its folders. */
  void stop() {
    if (context != null) {
      try {
        context.close();
      } finally {
        context = null;
      }
    }
  }

  /** Stops the host and starts it again with the same properties and folders. */
  TestHost restart() {
    stop();
    return start();
  }

  /** How long the last start took until the host listened. */
  Duration lastStart() {
    return lastStart;
  }

  int port() {
    if (context == null) {
      throw new IllegalStateException("not running");
    }
    return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
  }

  /** An HTTP client of this host that follows its restarts. */
  HostClient client() {
    return new HostClient(this::port);
  }

  /**
   * Keeps the host's component scan to the main classes. Started outside the test framework, the
   * application would otherwise also pick up {@code @Configuration} classes of other tests on the
   * class path (such as a {@code @Primary} test embedder) and stop being the host as shipped.
   */
  static final class MainClassesOnly extends TypeExcludeFilter {

    @Override
    public boolean match(MetadataReader reader, MetadataReaderFactory factory) {
      try {
        return reader.getResource().getURL().toString().contains("/test-classes/");
      } catch (IOException e) {
        return false;
      }
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof MainClassesOnly;
    }

    @Override
    public int hashCode() {
      return MainClassesOnly.class.hashCode();
    }
  }

  @Override
  public void close() {
    try {
      stop();
    } finally {
      try {
        FileSystemUtils.deleteRecursively(root);
      } catch (IOException e) {
        // a leftover temporary folder is no test failure
      }
    }
  }
}
