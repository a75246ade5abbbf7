package dev.memstack.mem0;

import static dev.memstack.mem0.TestSupport.USER_1;
import static dev.memstack.mem0.TestSupport.config;
import static dev.memstack.mem0.TestSupport.provider;
import static dev.memstack.mem0.TestSupport.request;
import static dev.memstack.mem0.TestSupport.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

@DisplayName("Against an old OSS server (top-level ids, no count field, relations, UPDATE events)")
class OldOssServerTest {

  @TempDir Path dataDir;
  private FakeMem0Server server;
  private Mem0MemoryProvider provider;

  @BeforeEach
  void start() {
    server = FakeMem0Server.start(FakeMem0Server.Generation.OLD_OSS);
    provider = provider(config(server), dataDir);
  }

  @AfterEach
  void stop() {
    provider.close();
    server.close();
  }

  @Test
  @DisplayName("search finds the owner's memories through the top-level ids, without a key header")
  void searchWorksThroughTopLevelIds() {
    server.seed("user:1", "helper", "Plays the cello on Sundays", Map.of());
    server.seed("user:2", "helper", "Plays the cello badly", Map.of());

    Recall recall = provider.prefetch(request(USER_1, "cello", 5));

    assertThat(recall.items())
        .extracting(RecallItem::text)
        .containsExactly("[Mem0 Recall] Plays the cello on Sundays");
    FakeMem0Server.Request search = server.last("POST", "/search");
    assertThat(search.header("X-API-Key")).isNull();
    assertThat(search.header("Authorization")).isNull();
    assertThat(search.body().get("user_id").asString()).isEqualTo("user:1");
    assertThat(search.body().get("agent_id").asString()).isEqualTo("helper");
  }

  @Test
  @DisplayName("a server that ignores the count field still yields at most the limit, best first")
  void aServerThatIgnoresTheCountStillYieldsTheLimit() {
    for (int i = 0; i < 30; i++) {
      server.seed(
          "user:1",
          "helper",
          "note " + i + " about kayaks" + " and rivers".repeat(i % 3),
          Map.of());
    }

    Recall recall = provider.prefetch(request(USER_1, "kayaks rivers", 4));

    assertThat(recall.items()).hasSize(4);
    for (int i = 1; i < recall.items().size(); i++) {
      assertThat(recall.items().get(i).score())
          .isLessThanOrEqualTo(recall.items().get(i - 1).score());
    }
    assertThat(recall.items().get(0).score()).isEqualTo(1.0);
  }

  @Test
  @DisplayName("zone-less timestamps are read as UTC")
  void zonelessTimestampsAreUtc() {
    server.seed("user:1", "helper", "Owns a red bicycle", Map.of());

    RecallItem item = provider.prefetch(request(USER_1, "bicycle", 1)).items().get(0);

    assertThat(item.createdAt()).isEqualTo(Instant.parse("2026-03-02T09:15:00Z"));
  }

  @Test
  @DisplayName("an add answered with UPDATE events and relations counts as accepted")
  void updateEventsAndRelationsCountAsAccepted() {
    server.seed("user:1", "helper", "I moved to Porto", Map.of());

    provider.syncTurn(turn("turn-old-1", USER_1, "I moved to Porto", "Porto is lovely."));
    provider.syncTurn(turn("turn-old-1", USER_1, "I moved to Porto", "Porto is lovely."));

    assertThat(server.requests("POST", "/memories")).hasSize(1);
    JsonNode body = server.last("POST", "/memories").body();
    assertThat(body.get("user_id").asString()).isEqualTo("user:1");
    assertThat(body.get("agent_id").asString()).isEqualTo("helper");
    assertThat(server.memoriesOf("user:1"))
        .extracting(m -> m.text)
        .containsExactlyInAnyOrder("I moved to Porto", "Porto is lovely.");
    assertThat(provider.health().status()).isEqualTo(ProviderHealth.Status.UP);
  }

  @Test
  @DisplayName("forget erases the owner with the unauthenticated bulk delete")
  void forgetErasesTheOwner() {
    server.seed("user:1", "helper", "fact one", Map.of());
    server.seed("user:2", "helper", "fact two", Map.of());

    assertThat(provider.forget(USER_1)).isEqualTo(1);
    assertThat(server.memoriesOf("user:1")).isEmpty();
    assertThat(server.memoriesOf("user:2")).hasSize(1);
  }
}
