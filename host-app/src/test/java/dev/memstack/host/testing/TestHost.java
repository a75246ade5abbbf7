package dev.memstack.host.testing;

import dev.memstack.host.MemstackApplication;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.TypeExcludeFilter;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.classreading.MetadataReaderFactory;

/**
 * A real host started outside the test framework: {@link MemstackApplication} on a free port, with
 * the three real plugin zips in a {@link HostFolder} and one admin API token. Unlike
 * {@code @SpringBootTest}, the test decides when the host stops and starts again, so a restart on
 * the same data folder can be tested. Properties go in as command-line arguments, so they win over
 * {@code application.yml} as a deployment's would, and the component scan sees the main classes
 * only (see {@link MainClassesOnly}). Registered as a static {@code @RegisterExtension} field, it
 * starts before the class's tests (unless the test class started it already) and is closed after
 * them; its {@link #client()} can be taken before the start, as it follows the host.
 */
public final class TestHost implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

  private final HostFolder folder;
  private final List<Class<?>> sources = new ArrayList<>(List.of(MemstackApplication.class));
  private ConfigurableApplicationContext context;
  private Duration lastStart = Duration.ZERO;

  private TestHost(HostFolder folder) {
    this.folder = folder;
    folder.with("server.port", "0");
  }

  /**
   * A host (not started yet) with the bundled embedding model, warmed up after the start as
   * shipped, named after {@code name}.
   */
  public static TestHost create(String name) {
    return new TestHost(
        HostFolder.create(name)
            .withAllPlugins()
            .adminToken()
            .without("memstack.models.onnx.warm-up"));
  }

  /**
   * A host (not started yet) with the kit's deterministic embedder (no model loads), deadlines
   * generous enough for a busy build machine and short delivery backoffs.
   */
  public static TestHost withTestEmbedder(String name) {
    TestHost host = create(name);
    host.sources.add(HashingEmbedderOverride.class);
    host.folder.with("memstack.models.onnx.warm-up", "false").patientDeadlines();
    return host.with("memstack.stack.sync.initial-backoff", "100ms")
        .with("memstack.stack.sync.max-backoff", "1s");
  }

  /** Sets one property for this and every later start. */
  public TestHost with(String key, String value) {
    folder.with(key, value);
    return this;
  }

  /** The host's tokens, each {@code {token, role, owner or null}}, in place of the admin token. */
  public TestHost tokens(String[]... tokens) {
    folder.tokens(tokens);
    return this;
  }

  /** Turns the mem0 provider on, at {@code baseUrl}. */
  public TestHost withMem0(String baseUrl) {
    return with("memstack.providers.mem0.enabled", "true")
        .with("memstack.providers.mem0.config.base-url", baseUrl);
  }

  /**
   * Mem0's own timeouts below the stack's outage deadline, so a silent server is Mem0's timeout,
   * and its breaker opening for a second.
   */
  public TestHost withShortMem0Timeouts() {
    return with("memstack.providers.mem0.config.timeout-ms", "1500")
        .with("memstack.providers.mem0.config.sync-timeout-ms", "3000")
        .with("memstack.providers.mem0.config.breaker-open-ms", "1000");
  }

  /**
   * The stack's timings of the outage tests: the context {@code deadline}, 2.5 s per provider call
   * and system prompt, and a breaker that opens for a second.
   */
  public TestHost withOutageTimings(Duration deadline) {
    return with("memstack.stack.context.deadline", deadline.toMillis() + "ms")
        .with("memstack.stack.context.provider-timeout", "2500ms")
        .with("memstack.stack.system-prompt.timeout", "2500ms")
        .with("memstack.stack.breaker.open-duration", "1s");
  }

  /**
   * A second vector provider, {@code vector-pg}, on pgvector at {@code jdbcUrl} in {@code schema},
   * as {@code MEMSTACK_PG_USER} and {@code MEMSTACK_PG_PASSWORD} (when set).
   */
  public TestHost withPgVector(String jdbcUrl, String schema) {
    with("memstack.providers.vector-pg.type", "vector");
    with("memstack.providers.vector-pg.order", "3");
    with("memstack.providers.vector-pg.config.store", "pgvector");
    with("memstack.providers.vector-pg.config.jdbc-url", jdbcUrl);
    with("memstack.providers.vector-pg.config.schema", schema);
    String user = System.getenv("MEMSTACK_PG_USER");
    String password = System.getenv("MEMSTACK_PG_PASSWORD");
    if (user != null && !user.isBlank()) {
      with("memstack.providers.vector-pg.config.username", user);
    }
    if (password != null && !password.isBlank()) {
      with("memstack.providers.vector-pg.config.password", password);
    }
    return this;
  }

  /** Starts the host; returns when it listens. */
  public TestHost start() {
    if (context != null) {
      throw new IllegalStateException("already running");
    }
    List<String> args = new ArrayList<>();
    folder.properties().forEach((key, value) -> args.add("--" + key + "=" + value));
    long begin = System.nanoTime();
    context =
        new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
            .initializers(
                ctx ->
                    ctx.getBeanFactory()
                        .registerSingleton(MainClassesOnly.class.getName(), new MainClassesOnly()))
            .run(args.toArray(String[]::new));
    lastStart = Duration.ofNanos(System.nanoTime() - begin);
    return this;
  }

  /** A bean of the running host. */
  public <T> T bean(Class<T> type) {
    if (context == null) {
      throw new IllegalStateException("not running");
    }
    return context.getBean(type);
  }

  /** Stops the host, keeping its folders to read what it left on disk. */
  public void stop() {
    if (context != null) {
      try {
        context.close();
      } finally {
        context = null;
      }
    }
  }

  /** Stops the host and starts it again with the same properties and folders. */
  public TestHost restart() {
    stop();
    return start();
  }

  /** How long the last start took until the host listened. */
  public Duration lastStart() {
    return lastStart;
  }

  public int port() {
    if (context == null) {
      throw new IllegalStateException("not running");
    }
    return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
  }

  public Path root() {
    return folder.root();
  }

  public Path dataDir() {
    return folder.data();
  }

  /** An HTTP client of this host with the admin token that follows its restarts. */
  public HostClient client() {
    return new HostClient(this::port);
  }

  /** The token {@code token} with {@code role}, bound to {@code owner} (or to none if null). */
  public TestHost withToken(String token, String role, String owner) {
    folder.addToken(token, role, owner);
    return this;
  }

  @Override
  public void beforeAll(ExtensionContext extension) {
    if (context == null) {
      start();
    }
  }

  @Override
  public void afterAll(ExtensionContext extension) {
    close();
  }

  /** Stops the host and deletes its folders. */
  @Override
  public void close() {
    try {
      stop();
    } finally {
      try {
        folder.delete();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Keeps the host's component scan to the main classes. Started outside the test framework, the
   * application would otherwise also pick up {@code @Configuration} classes of tests on the class
   * path (such as a {@code @Primary} test embedder) and stop being the host as shipped.
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
}
