package dev.memstack.host.proof;

import dev.memstack.host.MemstackApplication;
import dev.memstack.host.plugin.PluginZips;
import dev.memstack.host.security.TestTokens;
import dev.memstack.spi.Embedder;
import dev.memstack.tck.HashingEmbedder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.util.FileSystemUtils;

/**
 * A real host for the proof tests: {@link MemstackApplication} on a free port with the three real
 * plugin zips in a temporary plugins folder, a temporary data folder, one admin API token and the
 * deterministic test embedder (no model loads). Properties go in as command-line arguments.
 */
final class ProofHost implements AutoCloseable {

  /** Replaces the bundled embedding model by the kit's deterministic one. */
  @TestConfiguration(proxyBeanMethods = false)
  static class TestEmbedder {
    @Bean
    @Primary
    Embedder proofEmbedder() {
      return new HashingEmbedder();
    }
  }

  private final Path root;
  private final Path data;
  private final Map<String, String> properties = new LinkedHashMap<>();
  private ConfigurableApplicationContext context;

  private ProofHost(Path root) {
    this.root = root;
    this.data = root.resolve("data");
    Path plugins = PluginZips.copyAllTo(root.resolve("plugins"));
    properties.put("server.port", "0");
    properties.put("memstack.plugins.dir", plugins.toString());
    properties.put("memstack.data-dir", data.toString());
    properties.put("memstack.models.onnx.warm-up", "false");
    // a busy build machine makes cold provider calls slow; generous unless a test says otherwise
    properties.put("memstack.stack.context.provider-timeout", "5s");
    properties.put("memstack.stack.context.deadline", "8s");
    properties.put("memstack.stack.system-prompt.timeout", "5s");
    properties.put("memstack.stack.sync.initial-backoff", "100ms");
    properties.put("memstack.stack.sync.max-backoff", "1s");
    TestTokens.admin((name, value) -> properties.put(name, String.valueOf(value.get())));
  }

  static ProofHost create(String name) {
    try {
      return new ProofHost(Files.createTempDirectory("memstack-proof-" + name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  ProofHost with(String key, String value) {
    properties.put(key, value);
    return this;
  }

  ProofHost start() {
    List<String> args = new ArrayList<>();
    properties.forEach((key, value) -> args.add("--" + key + "=" + value));
    context =
        new SpringApplicationBuilder(MemstackApplication.class, TestEmbedder.class)
            .run(args.toArray(String[]::new));
    return this;
  }

  int port() {
    return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
  }

  Path root() {
    return root;
  }

  Path dataDir() {
    return data;
  }

  ProofClient client() {
    return new ProofClient(port());
  }

  /**
   * Stops the host and keeps its folders, to read what it left on disk; {@link #close} deletes
   * them.
   */
  void stop() {
    if (context != null) {
      context.close();
      context = null;
    }
  }

  @Override
  public void close() {
    try {
      if (context != null) {
        context.close();
      }
    } finally {
      try {
        FileSystemUtils.deleteRecursively(root);
      } catch (IOException e) {
        // a leftover temporary folder is no test failure
      }
    }
  }
}
