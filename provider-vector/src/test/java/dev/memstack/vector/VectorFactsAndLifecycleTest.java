package dev.memstack.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.HashingEmbedder;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.TestProviderContext;
import dev.memstack.vector.facts.ScriptedLanguageModel;
import dev.memstack.vector.lifecycle.Importance;
import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

@DisplayName("The vector provider's facts and lifecycle")
class VectorFactsAndLifecycleTest {

  static final AgentId AGENT = AgentId.of("assistant");
  static final OwnerKey USER_1 = OwnerKey.of("user:1");
  static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path dataDir;
  final MutableClock clock = MutableClock.at(Instant.parse("2026-03-02T09:30:00Z"));
  final List<MemoryProvider> providers = new ArrayList<>();
  int turns;

  @AfterEach
  void closeProviders() {
    providers.forEach(MemoryProvider::close);
  }

  VectorMemoryProvider provider(LanguageModel model, Map<String, String> extra) {
    Map<String, String> config = new HashMap<>(Map.of("store", "embedded"));
    config.putAll(extra);
    TestProviderContext context =
        TestProviderContext.builder()
            .instanceId("vector")
            .config(config)
            .dataDir(dataDir)
            .clock(clock)
            .embedder(new HashingEmbedder())
            .languageModel(model)
            .build();
    VectorMemoryProvider provider =
        (VectorMemoryProvider) new VectorMemoryProviderFactory().create(context);
    providers.add(provider);
    return provider;
  }

  Turn turn(String user) {
    clock.advance(Duration.ofMinutes(1));
    turns++;
    return new Turn(
        "turn-" + turns,
        AGENT,
        USER_1,
        "conv-1",
        user,
        "Noted.",
        TriggerSource.WEB,
        clock.instant());
  }

  static List<RecallItem> recall(MemoryProvider provider, String query, int limit) {
    return provider
        .prefetch(
            new RecallRequest(AGENT, USER_1, null, query, limit, Instant.now().plusSeconds(10)))
        .items();
  }

  static JsonNode tool(MemoryProvider provider, String name, String args) {
    return JSON.readTree(provider.callTool(new ToolCall(AGENT, USER_1, name, args)));
  }

  static void await(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.sleep(20);
    }
  }

  @Test
  @DisplayName("stores typed facts from a turn off the sync path when a chat model is configured")
  void storesFactsWithAModel() throws Exception {
    var model =
        new ScriptedLanguageModel(
            "```json\n{\"facts\":[{\"type\":\"PREFERENCE\",\"text\":\"The user prefers Kotlin\","
                + "\"importance\":\"HIGH\"}]}\n```");
    VectorMemoryProvider provider = provider(model, Map.of());

    provider.syncTurn(turn("I prefer Kotlin for new services"));
    provider.syncTurn(
        new Turn(
            "turn-1",
            AGENT,
            USER_1,
            "conv-1",
            "I prefer Kotlin for new services",
            "Noted.",
            TriggerSource.WEB,
            clock.instant()));

    await(
        () ->
            tool(provider, "list_memories", "{\"type\":\"PREFERENCE\"}").get("total").asInt() == 1);
    JsonNode fact =
        tool(provider, "list_memories", "{\"type\":\"PREFERENCE\"}").get("items").get(0);
    assertThat(fact.get("text").asString()).isEqualTo("The user prefers Kotlin");
    // the lifecycle's importance and weight are in the item (the list of an admin page)
    assertThat(fact.get("importance").asString()).isEqualTo("high");
    assertThat(fact.get("weight").asDouble()).isBetween(0.0, 1.0);
    assertThat(fact.get("trust").asDouble()).isZero();
    assertThat(provider.health().detail()).contains("facts=on");
    assertThat(model.userPrompts()).hasSize(1); // the redelivered turn is not extracted again
  }

  @Test
  @DisplayName("keeps raw turns as the only memory without a chat model")
  void rawTurnsOnlyWithoutAModel() {
    VectorMemoryProvider provider = provider(LanguageModel.none(), Map.of());

    provider.syncTurn(turn("I prefer Kotlin for new services"));

    JsonNode list = tool(provider, "list_memories", "{}");
    assertThat(list.get("total").asInt()).isEqualTo(1); // the reply "Noted." is filler
    list.get("items").forEach(item -> assertThat(item.get("type").asString()).isEqualTo("RAW"));
    assertThat(provider.health().detail()).contains("facts=off");
  }

  @Test
  @DisplayName("recalling a memory again and again changes neither the ranking nor the records")
  void repeatedRecallChangesNothing() throws Exception {
    VectorMemoryProvider provider = provider(LanguageModel.none(), Map.of("capture", "user"));
    provider.syncTurn(turn("the project deadline is on friday"));
    provider.syncTurn(turn("the project deadline moved because finance wants a budget review"));
    provider
        .parts()
        .store()
        .add(
            List.of(
                new MemoryRecord(
                        "fact",
                        "[2026-03-02] The project deadline matters to the user",
                        AGENT,
                        USER_1,
                        Scope.PERSONAL,
                        MemoryStatus.ACTIVE,
                        "FACT",
                        null,
                        null,
                        clock.instant(),
                        Lifecycle.initial(Importance.NORMAL, clock.instant()))
                    .toDocument()));
    List<RecallItem> before = recall(provider, "project deadline", 3);
    assertThat(before).hasSize(3);
    Map<String, Map<String, Object>> stored = new HashMap<>();
    for (RecallItem item : before) {
      String id = item.metadata().get("id");
      stored.put(id, provider.parts().store().get(id).orElseThrow().getMetadata());
    }
    String last = before.get(2).text();
    String unique =
        last.contains("finance")
            ? "finance budget review"
            : last.contains("friday") ? "friday" : "matters";

    for (int i = 0; i < 20; i++) {
      assertThat(recall(provider, unique, 1).get(0).text()).isEqualTo(last);
    }
    Thread.sleep(200); // nothing is written later either

    assertThat(recall(provider, "project deadline", 3)).isEqualTo(before);
    stored.forEach(
        (id, metadata) ->
            assertThat(provider.parts().store().get(id).orElseThrow().getMetadata())
                .isEqualTo(metadata));
    assertThat(before.get(0).metadata()).doesNotContainKey("signal.reinforcements");
  }

  @Test
  @DisplayName("gives an archived record a weight of 0.5 back when it is activated")
  void awakensAnArchivedRecord() {
    VectorMemoryProvider provider = provider(LanguageModel.none(), Map.of());
    Map<String, Object> extra =
        new LinkedHashMap<>(Lifecycle.initial(Importance.NORMAL, clock.instant()));
    extra.put(Lifecycle.WEIGHT, 0.15);
    extra.put(Lifecycle.ARCHIVED_BY, "decay");
    provider
        .parts()
        .store()
        .add(
            List.of(
                new MemoryRecord(
                        "f1",
                        "[2026-03-02] The user likes tea",
                        AGENT,
                        USER_1,
                        Scope.PERSONAL,
                        MemoryStatus.ARCHIVED,
                        "FACT",
                        null,
                        null,
                        clock.instant(),
                        extra)
                    .toDocument()));

    tool(provider, "update_memory_status", "{\"id\":\"f1\",\"status\":\"active\"}");

    Map<String, Object> meta = provider.parts().store().get("f1").orElseThrow().getMetadata();
    assertThat(Lifecycle.weight(meta)).isEqualTo(0.5);
    assertThat(meta).containsEntry("status", "ACTIVE").doesNotContainKey(Lifecycle.ARCHIVED_BY);
  }

  @Test
  @DisplayName("reports strongly overlapping memories of the owner as merge candidates")
  void reportsMergeCandidates() {
    VectorMemoryProvider provider = provider(LanguageModel.none(), Map.of());
    tool(provider, "remember", "{\"text\":\"Never mock the database in integration tests\"}");
    tool(
        provider,
        "remember",
        "{\"text\":\"Do not mock the database in the integration tests of the billing service\"}");
    tool(provider, "remember", "{\"text\":\"The user drinks green tea\"}");

    assertThat(tool(provider, "list_memories", "{}").get("total").asInt()).isEqualTo(3);

    JsonNode answer = tool(provider, "find_merge_candidates", "{\"threshold\":0.6}");

    assertThat(answer.get("pairs")).hasSize(1);
    assertThat(answer.get("pairs").get(0).get("first").get("text").asString()).contains("mock");
  }

  @Test
  @DisplayName("accepts the facts and lifecycle keys and names a bad one")
  void checksItsKeys() {
    provider(
        LanguageModel.none(),
        Map.of(
            "facts-enabled", "false",
            "facts-model-timeout", "10s",
            "lifecycle-enabled", "true",
            "decay-at", "03:30",
            "decay-interval", "12h",
            "merge-threshold", "0.92"));
    assertThatThrownBy(() -> provider(LanguageModel.none(), Map.of("decay-at", "3 am")))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("decay-at");
  }
}
