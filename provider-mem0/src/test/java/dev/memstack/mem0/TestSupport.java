package dev.memstack.mem0;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.TestProviderContext;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/** Builds providers, requests and turns for the tests of this module. */
final class TestSupport {

  static final AgentId AGENT = AgentId.of("helper");
  static final AgentId OTHER_AGENT = AgentId.of("planner");
  static final OwnerKey USER_1 = OwnerKey.of("user:1");
  static final OwnerKey USER_2 = OwnerKey.of("user:2");
  static final String INSTANCE = "mem0";

  private TestSupport() {}

  /** The settings every test starts from: the server's URL, short timeouts, no label. */
  static Map<String, String> config(FakeMem0Server server, String... more) {
    Map<String, String> config = config(server.baseUrl(), more);
    if (server.generation() == FakeMem0Server.Generation.PLATFORM) {
      config.putIfAbsent("flavor", "platform");
    }
    return config;
  }

  /** The settings for a server at {@code baseUrl}, then {@code more} as key-value pairs. */
  static Map<String, String> config(String baseUrl, String... more) {
    Map<String, String> config = new HashMap<>();
    config.put("base-url", baseUrl);
    config.put("timeout-ms", "2000");
    config.put("sync-timeout-ms", "2000");
    config.put("sync-retry-backoff-ms", "10");
    for (int i = 0; i + 1 < more.length; i += 2) {
      config.put(more[i], more[i + 1]);
    }
    return config;
  }

  static Mem0MemoryProvider provider(Map<String, String> config, Path dataDir) {
    MemoryProvider provider = new Mem0MemoryProviderFactory().create(context(config, dataDir));
    return (Mem0MemoryProvider) provider;
  }

  static TestProviderContext context(Map<String, String> config, Path dataDir) {
    return TestProviderContext.builder()
        .instanceId(INSTANCE)
        .config(config)
        .dataDir(dataDir)
        .build();
  }

  static RecallRequest request(OwnerKey owner, String query, int limit) {
    return request(AGENT, owner, query, limit, Duration.ofSeconds(5));
  }

  static RecallRequest request(
      AgentId agent, OwnerKey owner, String query, int limit, Duration deadlineIn) {
    return new RecallRequest(agent, owner, "conv-7", query, limit, Instant.now().plus(deadlineIn));
  }

  static Turn turn(String turnId, OwnerKey owner, String user, String reply) {
    return turn(turnId, AGENT, owner, user, reply);
  }

  static Turn turn(String turnId, AgentId agent, OwnerKey owner, String user, String reply) {
    return new Turn(
        turnId,
        agent,
        owner,
        "conv-7",
        user,
        reply,
        TriggerSource.WEB,
        Instant.parse("2026-03-02T09:15:00Z"));
  }
}
