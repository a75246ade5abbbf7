package dev.memstack.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.TestProviderContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A builtin provider over a temporary directory, with helpers to call tools and look at disk. */
final class Fixture implements AutoCloseable {

  static final Instant START = Instant.parse("2026-04-01T09:30:00Z");
  static final JsonMapper JSON = JsonMapper.builder().build();

  final Path dataDir;
  final MutableClock clock;
  final Map<String, String> config;
  TestProviderContext context;
  WorkspaceMemoryProvider provider;

  private Fixture(Path dataDir, Map<String, String> config, MutableClock clock) {
    this.dataDir = dataDir;
    this.config = config;
    this.clock = clock;
    start();
  }

  static Fixture open(Path dataDir) {
    return open(dataDir, Map.of());
  }

  static Fixture open(Path dataDir, Map<String, String> config) {
    return new Fixture(dataDir, config, MutableClock.at(START));
  }

  private void start() {
    context =
        TestProviderContext.builder()
            .instanceId("builtin")
            .config(config)
            .dataDir(dataDir)
            .clock(clock)
            .build();
    provider = (WorkspaceMemoryProvider) new BuiltinMemoryProviderFactory().create(context);
  }

  /** Closes the provider and opens a new one on the same directory. */
  void restart() {
    provider.close();
    start();
  }

  JsonNode tool(String agent, String owner, String name, Map<String, ?> arguments) {
    String answer =
        provider.callTool(
            new ToolCall(
                AgentId.of(agent),
                owner == null ? null : OwnerKey.of(owner),
                name,
                json(arguments)));
    try {
      return JSON.readTree(answer);
    } catch (JacksonException e) {
      throw new AssertionError("tool answer is not JSON: " + answer, e);
    }
  }

  ToolException toolError(String agent, String owner, String name, Map<String, ?> arguments) {
    ToolException error =
        catchThrowableOfType(ToolException.class, () -> tool(agent, owner, name, arguments));
    assertThat(error).as("%s(%s) must fail with a ToolException", name, arguments).isNotNull();
    return error;
  }

  Turn turn(String agent, String owner, String id, String user, String reply) {
    return new Turn(
        id,
        AgentId.of(agent),
        OwnerKey.of(owner),
        "c1",
        user,
        reply,
        TriggerSource.WEB,
        clock.instant());
  }

  List<RecallItem> recall(String agent, String owner, String query, int limit) {
    return recall(agent, owner, query, limit, false);
  }

  /** A recall that is a preview ({@link RecallRequest#preview()}), or a normal one. */
  List<RecallItem> recall(String agent, String owner, String query, int limit, boolean preview) {
    return provider
        .prefetch(
            new RecallRequest(
                    AgentId.of(agent),
                    owner == null ? null : OwnerKey.of(owner),
                    "c1",
                    query,
                    limit,
                    Instant.now().plusSeconds(10))
                .asPreview(preview))
        .items();
  }

  static String json(Map<String, ?> arguments) {
    return JSON.writeValueAsString(arguments);
  }

  /** Every file and directory under the data directory with a hash of its content. */
  Map<String, String> tree() {
    Map<String, String> tree = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(dataDir)) {
      for (Path path : paths.toList()) {
        String key = dataDir.relativize(path).toString();
        if (Files.isDirectory(path)) {
          tree.put(key + "/", "dir");
        } else {
          byte[] bytes = Files.readAllBytes(path);
          tree.put(
              key,
              HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes))
                  + " "
                  + Files.getLastModifiedTime(path).toMillis());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    return tree;
  }

  String read(String relative) {
    try {
      return Files.readString(dataDir.resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    provider.close();
  }
}
