package dev.memstack.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.HashingEmbedder;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.RecordingCoordination;
import dev.memstack.tck.TestProviderContext;
import dev.memstack.vector.facts.ScriptedLanguageModel;
import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Behaviour of the vector provider that goes beyond the compatibility kit, on any store: a store's
 * test extends this class and gives its configuration keys in {@link #storeConfig()} (called once
 * per test, so it can name a fresh table). Uses the kit's {@link HashingEmbedder}, so texts that
 * share words are close.
 */
public abstract class VectorMemoryProviderContract {

  protected static final AgentId AGENT = AgentId.of("assistant");
  protected static final AgentId OTHER_AGENT = AgentId.of("other-assistant");
  protected static final OwnerKey USER_1 = OwnerKey.of("user:1");
  protected static final OwnerKey USER_2 = OwnerKey.of("user:2");
  private static final Instant START = Instant.parse("2026-03-02T09:30:00Z");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The store's configuration keys ({@code store} included) for this test. */
  protected abstract Map<String, String> storeConfig();

  @TempDir protected Path dataDir;
  private Map<String, String> storeConfig;
  private final List<MemoryProvider> providers = new ArrayList<>();
  protected final MutableClock clock = MutableClock.at(START);
  protected final CountingEmbedder embedder = new CountingEmbedder(new HashingEmbedder());
  private int turns;

  @BeforeEach
  void configure() {
    storeConfig = storeConfig();
  }

  @AfterEach
  void closeProviders() {
    providers.forEach(MemoryProvider::close);
  }

  /** A provider on this test's store with extra configuration keys. */
  protected MemoryProvider provider(Map<String, String> extra, Embedder with) {
    return provider(extra, with, TestProviderContext.builder().dataDir(dataDir));
  }

  /**
   * A provider on this test's store with extra configuration keys, the chat model {@code model} and
   * the coordination {@code coordination}, with its data in {@code dir} (a "host" of its own; on
   * pgvector every host shares the table).
   */
  protected MemoryProvider provider(
      Map<String, String> extra, LanguageModel model, Coordination coordination, Path dir) {
    return provider(
        extra,
        embedder,
        TestProviderContext.builder().dataDir(dir).languageModel(model).coordination(coordination));
  }

  private MemoryProvider provider(
      Map<String, String> extra, Embedder with, TestProviderContext.Builder context) {
    Map<String, String> config = new HashMap<>(storeConfig);
    config.putAll(extra);
    MemoryProvider provider =
        new VectorMemoryProviderFactory()
            .create(
                context.instanceId("vector").config(config).clock(clock).embedder(with).build());
    providers.add(provider);
    return provider;
  }

  protected MemoryProvider provider() {
    return provider(Map.of(), embedder);
  }

  protected Turn turn(OwnerKey owner, String user, String reply) {
    return turn(AGENT, owner, user, reply);
  }

  protected Turn turn(AgentId agent, OwnerKey owner, String user, String reply) {
    clock.advance(Duration.ofMinutes(1));
    turns++;
    return new Turn(
        "turn-" + turns, agent, owner, "conv-1", user, reply, TriggerSource.WEB, clock.instant());
  }

  protected static List<RecallItem> recall(
      MemoryProvider provider, AgentId agent, OwnerKey owner, String query) {
    return provider
        .prefetch(new RecallRequest(agent, owner, null, query, 10, Instant.now().plusSeconds(10)))
        .items();
  }

  protected static JsonNode tool(
      MemoryProvider provider, OwnerKey owner, String name, String args) {
    return JSON.readTree(provider.callTool(new ToolCall(AGENT, owner, name, args)));
  }

  private JsonNode remember(MemoryProvider provider, String text) {
    return tool(provider, USER_1, "remember", "{\"text\":\"" + text + "\"}");
  }

  private static List<String> texts(List<RecallItem> items) {
    return items.stream().map(RecallItem::text).toList();
  }

  @Nested
  @DisplayName("Syncing turns")
  class Syncing {

    @Test
    @DisplayName("stores the user message and the reply, dated and marked with who said it")
    void storesTheExchangeDatedAndMarked() {
      MemoryProvider provider = provider();
      Turn turn =
          turn(
              USER_1,
              "I adopted a retired greyhound named Biscuit last spring",
              "A retired greyhound! How is Biscuit settling in at home?");
      provider.syncTurn(turn);

      JsonNode list = tool(provider, USER_1, "list_memories", "{}");
      assertThat(list.get("total").asInt()).isEqualTo(2);
      List<RecallItem> items = recall(provider, AGENT, USER_1, "greyhound Biscuit");
      assertThat(items).hasSize(2);
      // both records share the query's words; which ranks first is not this test's subject
      RecallItem first =
          items.stream()
              .filter(item -> "user".equals(item.metadata().get("role")))
              .findFirst()
              .orElseThrow();
      assertThat(first.text())
          .isEqualTo("user: I adopted a retired greyhound named Biscuit last spring");
      assertThat(first.scope()).isEqualTo(Scope.PERSONAL);
      assertThat(first.owner()).isEqualTo(USER_1);
      assertThat(first.source()).isEqualTo("vector");
      assertThat(first.createdAt()).isEqualTo(turn.time());
      assertThat(first.metadata())
          .containsEntry("type", "RAW")
          .containsEntry("status", "ACTIVE")
          .containsEntry("turn", turn.turnId())
          .containsEntry("conversation", "conv-1")
          .containsEntry("role", "user")
          .containsEntry("reply", "A retired greyhound! How is Biscuit settling in at home?")
          .containsKeys("id", "signal.vector_score", "signal.keyword_score", "signal.recency");
      assertThat(first.score()).isBetween(0.0, 1.0);
    }

    @Test
    @DisplayName("syncing the same turn again stores and embeds nothing new")
    void syncingTheSameTurnAgainStoresNothingNew() {
      MemoryProvider provider = provider();
      Turn turn = turn(USER_1, "My locker code is 4711", "Noted.");
      provider.syncTurn(turn);
      long embedded = embedder.passages.get();

      provider.syncTurn(turn);
      provider.syncTurn(turn);

      assertThat(embedder.passages.get()).as("passages embedded again").isEqualTo(embedded);
      // one record: the reply "Noted." is filler, carried by the user message's record
      assertThat(tool(provider, USER_1, "list_memories", "{}").get("total").asInt()).isEqualTo(1);
    }

    @Test
    @DisplayName("with capture=user stores the user message alone")
    void captureUserStoresTheUserMessageAlone() {
      MemoryProvider provider = provider(Map.of("capture", "user"), embedder);
      provider.syncTurn(turn(USER_1, "I play the bassoon", "How wonderful, the bassoon!"));

      JsonNode list = tool(provider, USER_1, "list_memories", "{}");
      assertThat(list.get("total").asInt()).isEqualTo(1);
      assertThat(list.get("items").get(0).get("text").asString())
          .isEqualTo("user: I play the bassoon");
    }

    @Test
    @DisplayName("splits a long message into chunks that each say who said it")
    void splitsALongMessageIntoChunks() {
      MemoryProvider provider = provider(Map.of("chunk-size", "200", "capture", "user"), embedder);
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < 30; i++) {
        text.append("Sentence number ").append(i).append(" is about topic ").append(i).append(". ");
      }
      provider.syncTurn(turn(USER_1, text.toString(), "ok"));

      JsonNode list = tool(provider, USER_1, "list_memories", "{\"limit\":100}");
      int total = list.get("total").asInt();
      assertThat(total).isGreaterThan(text.length() / 200);
      for (JsonNode item : list.get("items")) {
        assertThat(item.get("text").asString()).startsWith("user: ").hasSizeLessThanOrEqualTo(206);
      }
      List<RecallItem> hits = recall(provider, AGENT, USER_1, "topic 27");
      assertThat(hits.get(0).text()).contains("topic 27");
    }

    @Test
    @DisplayName("stores a message from the user alone when the reply is empty")
    void storesAnEmptyReplyAsNothing() {
      MemoryProvider provider = provider();
      provider.syncTurn(turn(USER_1, "Only a statement", ""));
      assertThat(tool(provider, USER_1, "list_memories", "{}").get("total").asInt()).isEqualTo(1);
    }

    @Test
    @DisplayName(
        "keeps a filler reply as context of the user message, never as a memory of its own")
    void keepsAFillerReplyAsContext() {
      MemoryProvider provider = provider();
      String[] fillers = {
        "Lovely!", "ok", "Noted.", "Thanks!", "Got it", "Sure", "好的", "收到", "👍🎉"
      };
      for (String filler : fillers) {
        provider.syncTurn(turn(USER_1, "My greyhound Biscuit likes " + filler.length(), filler));
      }

      JsonNode list = tool(provider, USER_1, "list_memories", "{\"limit\":100}");
      assertThat(list.get("total").asInt()).isEqualTo(fillers.length);
      List<String> replies = new ArrayList<>();
      for (JsonNode item : list.get("items")) {
        assertThat(item.get("role").asString()).isEqualTo("user");
        replies.add(item.get("reply").asString());
      }
      assertThat(replies).containsExactlyInAnyOrder(fillers);
      assertThat(recall(provider, AGENT, USER_1, "Lovely"))
          .allMatch(i -> i.text().startsWith("user: "));
    }

    @Test
    @DisplayName("with capture=exchange keeps a substantive reply as a memory of its own")
    void keepsASubstantiveReply() {
      MemoryProvider provider = provider();
      String reply = "Then take the ferry at 8:15, it stops right next to the office";
      provider.syncTurn(turn(USER_1, "How do I get to work from the island?", reply));

      JsonNode list = tool(provider, USER_1, "list_memories", "{}");
      assertThat(list.get("total").asInt()).isEqualTo(2);
      assertThat(recall(provider, AGENT, USER_1, "ferry").get(0).text())
          .isEqualTo("assistant: " + reply);
    }

    @Test
    @DisplayName("with capture=user stores nothing of the reply, not even as context")
    void captureUserStoresNoReply() {
      MemoryProvider provider = provider(Map.of("capture", "user"), embedder);
      provider.syncTurn(turn(USER_1, "I play the bassoon", "How wonderful, the bassoon!"));

      JsonNode item = tool(provider, USER_1, "list_memories", "{}").get("items").get(0);
      assertThat(item.has("reply")).isFalse();
    }

    @Test
    @DisplayName("cuts a long reply carried as context to 500 characters")
    void cutsALongReplyContext() {
      MemoryProvider provider = provider(Map.of("chunk-size", "2000"), embedder);
      String reply = "word ".repeat(300).strip();
      provider.syncTurn(turn(USER_1, "Tell me a long story", reply));

      List<RecallItem> items = recall(provider, AGENT, USER_1, "long story");
      String context = items.get(0).metadata().get("reply");
      assertThat(context).hasSize(500).endsWith("…");
    }
  }

  @Nested
  @DisplayName("Recall")
  class Recalling {

    private Turn said(String turnId, String conversation, String text) {
      clock.advance(Duration.ofMinutes(1));
      return new Turn(
          turnId, AGENT, USER_1, conversation, text, "", TriggerSource.WEB, clock.instant());
    }

    private int place(List<RecallItem> items, String needle) {
      for (int i = 0; i < items.size(); i++) {
        if (items.get(i).text().contains(needle)) {
          return i;
        }
      }
      return -1;
    }

    @Test
    @DisplayName(
        "asked for vectors, every recalled item carries its stored vector, of the host's model")
    void itemsCarryTheirVectors() {
      MemoryProvider provider = provider();
      provider.syncTurn(said("v-1", "pets", "Our beagle Biscuit came home with us in May"));
      provider.syncTurn(said("v-2", "pets", "Biscuit sleeps on the sofa all afternoon"));

      RecallRequest asking =
          new RecallRequest(AGENT, USER_1, null, "Biscuit", 10, Instant.now().plusSeconds(10));
      assertThat(provider.prefetch(asking).items())
          .as("no vector is read unless the host asks")
          .isNotEmpty()
          .allMatch(i -> i.vector() == null);
      List<RecallItem> items = provider.prefetch(asking.withVectors(true)).items();

      assertThat(items).hasSizeGreaterThanOrEqualTo(2);
      for (RecallItem item : items) {
        assertThat(item.vector()).as(item.text()).isNotNull();
        assertThat(item.vector().model()).isEqualTo(embedder.modelId());
        assertThat(item.vector().dimension()).isEqualTo(embedder.dimension());
      }
      // each is its own record's vector: two different texts, two different vectors
      assertThat(items.get(0).vector()).isNotEqualTo(items.get(1).vector());
    }

    @Test
    @DisplayName("lifts a memory whose conversation neighbour matches the query too")
    void liftsAMemoryWhoseConversationNeighbourMatches() {
      MemoryProvider provider = provider();
      // one by one: a batch becomes searchable within a second, a single turn at once
      provider.syncTurn(said("n-1", "walks", "Our beagle Biscuit came home with us in May"));
      provider.syncTurn(said("n-2", "walks", "She runs along the river park every morning"));
      provider.syncTurn(said("n-3", "city", "The river park downtown opened a new fountain"));

      List<RecallItem> items = recall(provider, AGENT, USER_1, "Biscuit river park");

      int neighbour = place(items, "She runs along");
      int stranger = place(items, "fountain");
      assertThat(neighbour).isNotNegative().isLessThan(stranger);
      assertThat(items.get(neighbour).metadata()).containsKey("signal.neighbour");
      assertThat(items.get(stranger).metadata()).doesNotContainKey("signal.neighbour");
    }

    @Test
    @DisplayName("neighbour-weight 0 leaves neighbours out of the rank")
    void neighbourWeightZeroLeavesNeighboursOut() {
      MemoryProvider provider = provider(Map.of("neighbour-weight", "0"), embedder);
      provider.syncTurn(said("n-1", "walks", "Our beagle Biscuit came home with us in May"));
      provider.syncTurn(said("n-2", "walks", "She runs along the river park every morning"));

      assertThat(recall(provider, AGENT, USER_1, "Biscuit river park"))
          .isNotEmpty()
          .allSatisfy(item -> assertThat(item.metadata()).doesNotContainKey("signal.neighbour"));
    }

    @Test
    @DisplayName("returns an owner's memory to that owner only, and survives a restart")
    void returnsAnOwnersMemoryToThatOwnerOnly() {
      MemoryProvider provider = provider();
      provider.syncTurn(
          turn(USER_1, "I adopted a retired greyhound named Biscuit last spring", "Lovely!"));
      provider.syncTurn(turn(USER_2, "I like sailing", "Nice."));

      assertThat(texts(recall(provider, AGENT, USER_1, "my greyhound")))
          .anyMatch(t -> t.contains("Biscuit"));
      assertThat(texts(recall(provider, AGENT, USER_2, "my greyhound Biscuit")))
          .noneMatch(t -> t.contains("Biscuit"));
      provider.close();

      MemoryProvider restarted = provider();
      assertThat(texts(recall(restarted, AGENT, USER_1, "my greyhound")))
          .anyMatch(t -> t.contains("Biscuit"));
      assertThat(texts(recall(restarted, AGENT, USER_2, "my greyhound Biscuit")))
          .noneMatch(t -> t.contains("Biscuit"));
    }

    @Test
    @DisplayName("ranks the closest memory first and orders by score")
    void ranksTheClosestMemoryFirst() {
      MemoryProvider provider = provider(Map.of("capture", "user"), embedder);
      provider.syncTurn(turn(USER_1, "My sister lives in Lisbon", "ok"));
      provider.syncTurn(turn(USER_1, "I drive a blue bicycle to work", "ok"));
      provider.syncTurn(turn(USER_1, "My favourite food is mushroom risotto", "ok"));

      List<RecallItem> items = recall(provider, AGENT, USER_1, "mushroom risotto");
      assertThat(items.get(0).text()).contains("mushroom risotto");
      for (int i = 1; i < items.size(); i++) {
        assertThat(items.get(i).score()).isLessThanOrEqualTo(items.get(i - 1).score());
      }
    }

    @Test
    @DisplayName("returns at most top-k items")
    void returnsAtMostTopK() {
      MemoryProvider provider = provider(Map.of("top-k", "2"), embedder);
      for (int i = 0; i < 6; i++) {
        provider.syncTurn(turn(USER_1, "pancake recipe number " + i, "yum pancake"));
      }
      assertThat(recall(provider, AGENT, USER_1, "pancake")).hasSize(2);
    }

    @Test
    @DisplayName("leaves out archived and suppressed memories, and takes back activated ones")
    void leavesOutArchivedMemories() {
      MemoryProvider provider = provider(Map.of("capture", "user"), embedder);
      provider.syncTurn(turn(USER_1, "My passport number ends in 991", "ok"));
      String id = recall(provider, AGENT, USER_1, "passport").get(0).metadata().get("id");

      JsonNode changed =
          tool(
              provider,
              USER_1,
              "update_memory_status",
              "{\"id\":\"" + id + "\",\"status\":\"archived\"}");
      assertThat(changed.get("status").asString()).isEqualTo("archived");
      assertThat(changed.get("previous").asString()).isEqualTo("active");
      assertThat(recall(provider, AGENT, USER_1, "passport")).isEmpty();

      tool(
          provider,
          USER_1,
          "update_memory_status",
          "{\"id\":\"" + id + "\",\"status\":\"active\"}");
      assertThat(recall(provider, AGENT, USER_1, "passport")).hasSize(1);
    }

    @Test
    @DisplayName("shows team memory to every owner of the agent and global memory to every agent")
    void showsSharedMemory() {
      MemoryProvider provider = provider();
      tool(
          provider,
          null,
          "remember",
          "{\"text\":\"Office wifi is called Narwhal\",\"scope\":\"team\"}");
      provider.callTool(
          new ToolCall(
              OTHER_AGENT,
              null,
              "remember",
              "{\"text\":\"The company was founded in Narwhal Bay\",\"scope\":\"global\"}"));

      for (OwnerKey owner : new OwnerKey[] {USER_1, USER_2, null}) {
        List<RecallItem> items = recall(provider, AGENT, owner, "Narwhal");
        assertThat(items).extracting(RecallItem::scope).contains(Scope.TEAM, Scope.GLOBAL);
        assertThat(items).allMatch(i -> i.owner() == null);
      }
      assertThat(recall(provider, OTHER_AGENT, USER_1, "Narwhal"))
          .extracting(RecallItem::scope)
          .containsExactly(Scope.GLOBAL);
    }

    @Test
    @DisplayName("leaves out memories below the similarity threshold that share no keyword")
    void leavesOutUnrelatedMemories() {
      MemoryProvider provider = provider(Map.of("capture", "user"), embedder);
      provider.syncTurn(turn(USER_1, "I play the bassoon in an orchestra", "ok"));

      assertThat(recall(provider, AGENT, USER_1, "quantum chromodynamics lecture")).isEmpty();
      assertThat(recall(provider, AGENT, USER_1, "bassoon")).hasSize(1);
    }

    @Test
    @DisplayName("prefers the newer of two equally close memories, by its recency factor")
    void prefersTheNewerOfTwoEquallyCloseMemories() {
      MemoryProvider provider =
          provider(Map.of("capture", "user", "recency-weight", "0.5"), embedder);
      provider.syncTurn(turn(USER_1, "The wifi password is hunter2", "ok"));
      clock.advance(Duration.ofDays(365));
      provider.syncTurn(turn(USER_1, "The wifi password is hunter2", "ok"));

      List<RecallItem> items = recall(provider, AGENT, USER_1, "wifi password");
      assertThat(items).hasSize(2);
      assertThat(items.get(0).createdAt()).isAfter(items.get(1).createdAt());
      assertThat(Double.parseDouble(items.get(0).metadata().get("signal.recency")))
          .isGreaterThan(0.99);
      assertThat(Double.parseDouble(items.get(1).metadata().get("signal.recency")))
          .isBetween(0.49, 0.51);
    }

    @Test
    @DisplayName("a blank query recalls nothing")
    void aBlankQueryRecallsNothing() {
      MemoryProvider provider = provider();
      provider.syncTurn(turn(USER_1, "anything at all", "ok"));
      assertThat(recall(provider, AGENT, USER_1, "  ")).isEmpty();
    }
  }

  @Nested
  @DisplayName("Feedback")
  class Feedback {

    private static final String QUERY = "locker code 4711";

    /** Adds a PERSONAL record of {@code owner} straight to the store, created at {@code at}. */
    private String add(
        MemoryProvider provider, String id, OwnerKey owner, String text, Instant at) {
      ((VectorMemoryProvider) provider)
          .parts()
          .store()
          .add(
              List.of(
                  new MemoryRecord(
                          id,
                          text,
                          AGENT,
                          owner,
                          Scope.PERSONAL,
                          MemoryStatus.ACTIVE,
                          "FACT",
                          null,
                          null,
                          at,
                          Map.of())
                      .toDocument()));
      return id;
    }

    private String remember(MemoryProvider provider, AgentId agent, String scope, String text) {
      JsonNode answer =
          JSON.readTree(
              provider.callTool(
                  new ToolCall(
                      agent,
                      null,
                      "remember",
                      "{\"scope\":\"" + scope + "\",\"text\":\"" + text + "\"}")));
      assertThat(answer.get("stored").asBoolean()).as("stored %s", text).isTrue();
      return answer.get("id").asString();
    }

    private List<String> ids(List<RecallItem> items) {
      return items.stream().map(item -> item.metadata().get("id")).toList();
    }

    private void feedback(MemoryProvider provider, OwnerKey owner, String id, int times) {
      for (int i = 0; i < times; i++) {
        assertThat(provider.feedback(AGENT, owner, List.of(id))).isOne();
      }
    }

    @Test
    @DisplayName("prefetch records nothing, and the provider claims FEEDBACK")
    void prefetchRecordsNothing() {
      MemoryProvider provider = provider();
      String a = add(provider, "a", USER_1, "locker code 4711, locker code 4711", clock.instant());
      for (int i = 0; i < 10; i++) {
        recall(provider, AGENT, USER_1, QUERY);
      }

      assertThat(provider.capabilities()).contains(dev.memstack.spi.Capability.FEEDBACK);
      assertThat(((VectorMemoryProvider) provider).parts().store().feedback(USER_1, List.of(a)))
          .isEmpty();
      assertThat(recall(provider, AGENT, USER_1, QUERY).get(0).metadata())
          .containsEntry("signal.feedback", "0")
          .containsEntry("signal.feedback_factor", "1.0000")
          .doesNotContainKey("signal.reinforcements");
    }

    @Test
    @DisplayName(
        "a preview recalls what a normal recall does, and leaves feedback, trust and weight as"
            + " they were")
    void aPreviewAnswersTheSameAndChangesNothing() {
      MemoryProvider provider = provider();
      Instant now = clock.instant();
      String used = add(provider, "a", USER_1, "locker code 4711, locker code 4711", now);
      add(provider, "b", USER_1, "my old locker code was 4711 at school", now);
      feedback(provider, USER_1, used, 2);
      RecallRequest normal =
          new RecallRequest(AGENT, USER_1, null, QUERY, 10, Instant.now().plusSeconds(10));
      List<RecallItem> before = provider.prefetch(normal).items();

      for (int i = 0; i < 25; i++) {
        assertThat(provider.prefetch(normal.asPreview(true)).items()).isEqualTo(before);
      }

      assertThat(normal.asPreview(true).preview()).isTrue();
      assertThat(normal.preview()).isFalse();
      assertThat(provider.prefetch(normal).items()).isEqualTo(before);
      assertThat(((VectorMemoryProvider) provider).parts().store().feedback(USER_1, List.of(used)))
          .containsEntry(used, 2L);
      assertThat(before.get(0).metadata())
          .containsEntry("signal.feedback", "2")
          .containsKey("signal.trust");
    }

    @Test
    @DisplayName("heavy feedback never lifts a less relevant memory above a more relevant one")
    void heavyFeedbackNeverLiftsALessRelevantMemory() {
      MemoryProvider provider = provider();
      Instant now = clock.instant();
      String relevant = add(provider, "a", USER_1, "locker code 4711, locker code 4711", now);
      String weaker = add(provider, "b", USER_1, "my old locker code was 4711 at school", now);
      String unrelated = add(provider, "c", USER_1, "the gym has a new locker room", now);
      List<RecallItem> before = recall(provider, AGENT, USER_1, QUERY);
      assertThat(ids(before)).containsExactly(relevant, weaker, unrelated);

      feedback(provider, USER_1, weaker, 40);
      feedback(provider, USER_1, unrelated, 40);

      List<RecallItem> after = recall(provider, AGENT, USER_1, QUERY);
      assertThat(ids(after)).containsExactly(relevant, weaker, unrelated);
      assertThat(after.get(1).metadata())
          .containsEntry("signal.feedback", "40")
          .containsEntry("signal.feedback_factor", "1.0300");
      assertThat(after.get(1).score())
          .isCloseTo(before.get(1).score() * 1.03, org.assertj.core.api.Assertions.within(1e-9))
          .isLessThan(after.get(0).score());
      assertThat(after.get(0).score()).isEqualTo(before.get(0).score());
    }

    @Test
    @DisplayName("orders a near-tie: one confirmation lifts the used memory of two close ones")
    void ordersANearTie() {
      // rrf-k 20 pins the arithmetic below (the default 10 puts ranks farther apart)
      MemoryProvider provider = provider(Map.of("rrf-k", "20"), embedder);
      // the better match is 70 days old, so its recency factor (0.960) almost cancels its lead
      // in the fused rank (1 against 21/22 = 0.955): half a percent apart
      String older =
          add(
              provider,
              "a",
              USER_1,
              "locker code 4711, locker code 4711",
              clock.instant().minus(Duration.ofDays(70)));
      String newer =
          add(provider, "b", USER_1, "my old locker code was 4711 at school", clock.instant());
      assertThat(ids(recall(provider, AGENT, USER_1, QUERY))).containsExactly(older, newer);

      feedback(provider, USER_1, newer, 1);

      List<RecallItem> after = recall(provider, AGENT, USER_1, QUERY);
      assertThat(ids(after)).containsExactly(newer, older);
      assertThat(after.get(0).metadata()).containsEntry("signal.feedback", "1");
      assertThat(ids(recall(provider, AGENT, USER_2, QUERY))).isEmpty();
    }

    @Test
    @DisplayName("one owner's feedback on shared memory leaves another owner's answer unchanged")
    void oneOwnersFeedbackLeavesAnotherOwnersAnswerUnchanged() {
      MemoryProvider provider = provider();
      remember(provider, AGENT, "team", "Team lunch is on Friday at noon");
      remember(provider, AGENT, "team", "Friday deploys need two approvals");
      remember(provider, AGENT, "global", "The Friday demo starts at noon in the atrium");
      String query = "Friday noon";
      List<RecallItem> before = recall(provider, AGENT, USER_2, query);
      assertThat(before).hasSize(3);
      String last = before.get(2).metadata().get("id");

      feedback(provider, USER_1, last, 20);

      assertThat(recall(provider, AGENT, USER_2, query)).isEqualTo(before);
      assertThat(recall(provider, AGENT, null, query))
          .allSatisfy(item -> assertThat(item.metadata()).doesNotContainKey("signal.feedback"));
      RecallItem used =
          recall(provider, AGENT, USER_1, query).stream()
              .filter(item -> item.metadata().get("id").equals(last))
              .findFirst()
              .orElseThrow();
      assertThat(used.metadata()).containsEntry("signal.feedback", "20");
    }

    @Test
    @DisplayName("applies only ids the owner may see, once per call, and ignores the rest")
    void appliesOnlyVisibleIds() {
      MemoryProvider provider = provider();
      String own = add(provider, "own", USER_1, "my own locker code 4711", clock.instant());
      String other = add(provider, "other", USER_2, "their locker code 4711", clock.instant());
      String team = remember(provider, AGENT, "team", "the team locker code is 4711");
      String otherTeam = remember(provider, OTHER_AGENT, "team", "another team's locker 4711");
      String global = remember(provider, OTHER_AGENT, "global", "every locker opens with 4711");

      assertThat(provider.feedback(AGENT, USER_1, List.of())).isZero();
      assertThat(provider.feedback(AGENT, USER_1, List.of("no-such-id", other, otherTeam)))
          .isZero();
      assertThat(provider.feedback(AGENT, USER_1, List.of(own, own, team, global, other)))
          .isEqualTo(3);
      assertThat(provider.feedback(OTHER_AGENT, USER_1, List.of(own, otherTeam))).isOne();

      MemoryVectorStore store = ((VectorMemoryProvider) provider).parts().store();
      assertThat(store.feedback(USER_1, List.of(own, other, team, otherTeam, global)))
          .containsExactlyInAnyOrderEntriesOf(Map.of(own, 1L, team, 1L, global, 1L, otherTeam, 1L));
      assertThat(store.feedback(USER_2, List.of(own, other, team, otherTeam, global))).isEmpty();
    }

    @Test
    @DisplayName("forget erases the owner's feedback, on shared memory too, and nobody else's")
    void forgetErasesTheOwnersFeedback() {
      MemoryProvider provider = provider();
      String team = remember(provider, AGENT, "team", "the team locker code is 4711");
      feedback(provider, USER_1, team, 2);
      feedback(provider, USER_2, team, 1);

      provider.forget(USER_1);

      MemoryVectorStore store = ((VectorMemoryProvider) provider).parts().store();
      assertThat(store.feedback(USER_1, List.of(team))).isEmpty();
      assertThat(store.feedback(USER_2, List.of(team))).containsEntry(team, 1L);
    }

    @Test
    @DisplayName(
        "keeps every score within 0..1 and in order, whatever the weights, ages and feedback")
    void keepsEveryScoreWithinBounds() {
      MemoryProvider provider = provider();
      MemoryVectorStore store = ((VectorMemoryProvider) provider).parts().store();
      java.util.SplittableRandom random = new java.util.SplittableRandom(42);
      String[] words = {
        "locker",
        "code",
        "friday",
        "noon",
        "greyhound",
        "biscuit",
        "tea",
        "lisbon",
        "risotto",
        "bassoon",
        "wifi",
        "deploy"
      };
      List<org.springframework.ai.document.Document> docs = new ArrayList<>();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        StringBuilder text = new StringBuilder();
        for (int w = 0, n = 1 + random.nextInt(6); w < n; w++) {
          text.append(words[random.nextInt(words.length)]).append(' ');
        }
        Map<String, Object> extra = new HashMap<>();
        if (random.nextInt(3) > 0) {
          extra.put("importance", "NORMAL");
          extra.put("weight", random.nextDouble(-0.5, 1.5)); // out of range on purpose
        }
        Scope scope = Scope.values()[random.nextInt(3)];
        Instant at = clock.instant().plus(Duration.ofHours(random.nextLong(-24 * 1000, 24 * 10)));
        String id = "r" + i;
        ids.add(id);
        docs.add(
            new MemoryRecord(
                    id,
                    text.toString().trim(),
                    AGENT,
                    scope == Scope.PERSONAL ? (random.nextBoolean() ? USER_1 : USER_2) : null,
                    scope,
                    MemoryStatus.ACTIVE,
                    "FACT",
                    null,
                    null,
                    at,
                    extra)
                .toDocument());
      }
      store.add(docs);
      for (int i = 0; i < 40; i++) {
        List<String> some = new ArrayList<>();
        for (int j = 0, n = 1 + random.nextInt(8); j < n; j++) {
          some.add(ids.get(random.nextInt(ids.size())));
        }
        provider.feedback(AGENT, random.nextBoolean() ? USER_1 : USER_2, some);
      }

      for (int q = 0; q < 40; q++) {
        String query =
            words[random.nextInt(words.length)] + " " + words[random.nextInt(words.length)];
        for (OwnerKey owner : new OwnerKey[] {USER_1, USER_2, null}) {
          List<RecallItem> items = recall(provider, AGENT, owner, query);
          for (int i = 0; i < items.size(); i++) {
            RecallItem item = items.get(i);
            assertThat(item.score()).as("score of %s for '%s'", item, query).isBetween(0.0, 1.0);
            if (i > 0) {
              assertThat(item.score()).isLessThanOrEqualTo(items.get(i - 1).score());
            }
            if (owner != null) {
              assertThat(Double.parseDouble(item.metadata().get("signal.feedback_factor")))
                  .isBetween(1.0, 1.03);
            }
          }
        }
      }
    }
  }

  @Nested
  @DisplayName("Trust, up and down")
  class TrustBothWays {

    private static final String QUERY = "Friday noon lunch";

    private String remember(MemoryProvider provider, String scope, String text) {
      JsonNode answer =
          JSON.readTree(
              provider.callTool(
                  new ToolCall(
                      AGENT,
                      USER_1,
                      "remember",
                      "{\"scope\":\"" + scope + "\",\"text\":\"" + text + "\"}")));
      assertThat(answer.get("stored").asBoolean()).as("stored %s", text).isTrue();
      return answer.get("id").asString();
    }

    private List<String> ids(List<RecallItem> items) {
      return items.stream().map(item -> item.metadata().get("id")).toList();
    }

    private RecallItem item(List<RecallItem> items, String id) {
      return items.stream()
          .filter(item -> item.metadata().get("id").equals(id))
          .findFirst()
          .orElseThrow();
    }

    private MemoryVectorStore store(MemoryProvider provider) {
      return ((VectorMemoryProvider) provider).parts().store();
    }

    private void wrong(MemoryProvider provider, OwnerKey owner, String id, int times) {
      for (int i = 0; i < times; i++) {
        assertThat(provider.wrong(AGENT, owner, List.of(id))).isOne();
      }
    }

    @Test
    @DisplayName("the provider claims TRUST and reports a trust of 0 without feedback")
    void claimsTrustAndReportsZero() {
      MemoryProvider provider = provider();
      remember(provider, "team", "Team lunch is on Friday at noon");

      assertThat(provider.capabilities()).contains(dev.memstack.spi.Capability.TRUST);
      assertThat(recall(provider, AGENT, USER_1, QUERY).get(0).metadata())
          .containsEntry("signal.trust", "0.0000")
          .containsEntry("signal.wrong", "0")
          .containsEntry("signal.trust_factor", "1.0000");
    }

    @Test
    @DisplayName("a wrong lowers a memory below the relevant one after it, for that owner only")
    void aWrongLowersAMemoryForThatOwnerOnly() {
      MemoryProvider provider = provider();
      remember(provider, "team", "Team lunch is on Friday at noon");
      remember(provider, "team", "Friday lunch at noon with the design team");
      remember(provider, "team", "Deploys on Friday need two approvals");
      List<RecallItem> before = recall(provider, AGENT, USER_1, QUERY);
      List<RecallItem> otherBefore = recall(provider, AGENT, USER_2, QUERY);
      assertThat(before).hasSizeGreaterThanOrEqualTo(2);
      String first = before.get(0).metadata().get("id");
      String second = before.get(1).metadata().get("id");

      wrong(provider, USER_1, first, 1);

      List<RecallItem> after = recall(provider, AGENT, USER_1, QUERY);
      assertThat(ids(after).subList(0, 2)).containsExactly(second, first);
      assertThat(item(after, first).metadata())
          .containsEntry("signal.wrong", "1")
          .containsEntry("signal.trust", "-0.4621")
          .containsEntry("signal.trust_factor", "0.7689");
      assertThat(item(after, first).score())
          .isCloseTo(
              before.get(0).score() * (1 - 0.5 * Math.tanh(0.5)),
              org.assertj.core.api.Assertions.within(1e-9));
      assertThat(item(after, second).score()).isEqualTo(before.get(1).score());
      assertThat(recall(provider, AGENT, USER_2, QUERY)).isEqualTo(otherBefore);
    }

    @Test
    @DisplayName("applies only ids the owner may see and ignores the rest")
    void appliesOnlyVisibleIds() {
      MemoryProvider provider = provider();
      String own = remember(provider, "personal", "my own locker code 4711");
      String team = remember(provider, "team", "the team locker code is 4711");

      assertThat(provider.wrong(AGENT, USER_1, List.of())).isZero();
      assertThat(provider.wrong(AGENT, USER_2, List.of(own, "no-such-id"))).isZero();
      assertThat(provider.wrong(AGENT, USER_1, List.of(own, own, team))).isEqualTo(2);
      assertThat(provider.wrong(OTHER_AGENT, USER_1, List.of(own, team))).isZero();
      assertThat(store(provider).trust(USER_2, List.of(own, team))).isEmpty();
      assertThat(store(provider).trust(USER_1, List.of(own, team)))
          .allSatisfy((id, row) -> assertThat(row.wrongs()).isOne());
    }

    @Test
    @DisplayName("marked wrong three times, an owner's own memory is suppressed, never deleted")
    void repeatedWrongsSuppressAPersonalMemory() {
      MemoryProvider provider = provider();
      String own = remember(provider, "personal", "Lunch on Friday at noon with Ana");

      wrong(provider, USER_1, own, 2);
      assertThat(ids(recall(provider, AGENT, USER_1, QUERY))).contains(own);
      wrong(provider, USER_1, own, 1);

      assertThat(ids(recall(provider, AGENT, USER_1, QUERY))).doesNotContain(own);
      MemoryRecord record = MemoryRecord.fromDocument(store(provider).get(own).orElseThrow());
      assertThat(record.status()).isEqualTo(MemoryStatus.SUPPRESSED);
      assertThat(store(provider).trust(USER_1, List.of(own)).get(own).wrongs()).isEqualTo(3);
    }

    @Test
    @DisplayName("marked wrong three times, a shared memory is hidden from that owner alone")
    void repeatedWrongsHideASharedMemoryFromThatOwnerAlone() {
      MemoryProvider provider = provider(Map.of("wrong-suppress-count", "2"), embedder);
      String team = remember(provider, "team", "Team lunch is on Friday at noon");
      remember(provider, "team", "Friday lunch at noon with the design team");

      wrong(provider, USER_1, team, 2);

      assertThat(ids(recall(provider, AGENT, USER_1, QUERY))).doesNotContain(team);
      assertThat(ids(recall(provider, AGENT, USER_2, QUERY))).contains(team);
      MemoryRecord record = MemoryRecord.fromDocument(store(provider).get(team).orElseThrow());
      assertThat(record.status()).isEqualTo(MemoryStatus.ACTIVE);
      assertThat(store(provider).trust(USER_1, List.of(team)).get(team).hidden()).isTrue();
      assertThat(store(provider).trust(USER_2, List.of(team))).isEmpty();
    }

    @Test
    @DisplayName(
        "activating a shared memory hidden by an owner's wrongs shows it to that owner again")
    void activatingShowsAHiddenSharedMemoryAgain() {
      MemoryProvider provider = provider(Map.of("wrong-suppress-count", "2"), embedder);
      String team = remember(provider, "team", "Team lunch is on Friday at noon");
      wrong(provider, USER_1, team, 2);
      wrong(provider, USER_2, team, 2);
      assertThat(ids(recall(provider, AGENT, USER_1, QUERY))).doesNotContain(team);

      JsonNode shown =
          tool(
              provider,
              USER_1,
              StandardTools.UPDATE_MEMORY_STATUS,
              "{\"id\":\"" + team + "\",\"status\":\"active\"}");

      assertThat(shown.get("previous").asString()).isEqualTo("hidden");
      assertThat(shown.get("shownAgainTo").asString()).isEqualTo(USER_1.value());
      assertThat(ids(recall(provider, AGENT, USER_1, QUERY))).contains(team);
      // for that owner alone, and one more wrong does not hide it again at once
      assertThat(ids(recall(provider, AGENT, USER_2, QUERY))).doesNotContain(team);
      wrong(provider, USER_1, team, 1);
      assertThat(ids(recall(provider, AGENT, USER_1, QUERY))).contains(team);
      // the memory itself is unchanged, and its history says nothing of one owner's view
      MemoryRecord record = MemoryRecord.fromDocument(store(provider).get(team).orElseThrow());
      assertThat(record.status()).isEqualTo(MemoryStatus.ACTIVE);
      assertThat(
              tool(provider, USER_1, StandardTools.MEMORY_HISTORY, "{\"id\":\"" + team + "\"}")
                  .toString())
          .doesNotContain("hidden")
          .doesNotContain(USER_1.value());
      // an active memory not hidden from the owner: activating it stays a conflict
      assertThatThrownBy(
              () ->
                  tool(
                      provider,
                      USER_1,
                      StandardTools.UPDATE_MEMORY_STATUS,
                      "{\"id\":\"" + team + "\",\"status\":\"active\"}"))
          .isInstanceOf(ToolException.class)
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.CONFLICT);
    }

    @Test
    @DisplayName("a wrong-suppress-count of 0 never suppresses")
    void zeroNeverSuppresses() {
      MemoryProvider provider = provider(Map.of("wrong-suppress-count", "0"), embedder);
      String own = remember(provider, "personal", "Lunch on Friday at noon with Ana");

      wrong(provider, USER_1, own, 5);

      assertThat(ids(recall(provider, AGENT, USER_1, QUERY))).contains(own);
      assertThat(item(recall(provider, AGENT, USER_1, QUERY), own).metadata())
          .containsEntry("signal.wrong", "5");
    }

    @Test
    @DisplayName("trust fades with trust-half-life-days, both ways")
    void trustFadesWithTheHalfLife() {
      MemoryProvider provider = provider(Map.of("trust-half-life-days", "30"), embedder);
      String team = remember(provider, "team", "Team lunch is on Friday at noon");

      wrong(provider, USER_1, team, 1);
      assertThat(item(recall(provider, AGENT, USER_1, QUERY), team).metadata())
          .containsEntry("signal.trust", "-0.4621"); // tanh(-0.5)
      clock.advance(Duration.ofDays(30));
      assertThat(item(recall(provider, AGENT, USER_1, QUERY), team).metadata())
          .containsEntry("signal.trust", "-0.2449"); // tanh(-0.25)
      clock.advance(Duration.ofDays(30));
      assertThat(provider.feedback(AGENT, USER_1, List.of(team))).isOne();
      // -0.125 faded, +0.25 used: tanh(0.125)
      assertThat(item(recall(provider, AGENT, USER_1, QUERY), team).metadata())
          .containsEntry("signal.trust", "0.1244")
          .containsEntry("signal.trust_factor", "1.0000")
          .containsEntry("signal.feedback", "1")
          .containsEntry("signal.wrong", "1");
      clock.advance(Duration.ofDays(3650));
      assertThat(item(recall(provider, AGENT, USER_1, QUERY), team).metadata())
          .containsEntry("signal.trust", "0.0000");
    }

    @Test
    @DisplayName("rejects a trust half-life or suppress count out of range, naming the key")
    void rejectsBadSettings() {
      assertThatThrownBy(() -> provider(Map.of("trust-half-life-days", "0"), embedder))
          .isInstanceOf(ProviderConfigException.class)
          .hasMessageContaining("trust-half-life-days");
      assertThatThrownBy(() -> provider(Map.of("wrong-suppress-count", "-1"), embedder))
          .isInstanceOf(ProviderConfigException.class)
          .hasMessageContaining("wrong-suppress-count");
    }

    @Test
    @DisplayName("forget erases the owner's trust rows, hidden ones too, and nobody else's")
    void forgetErasesTheOwnersTrust() {
      MemoryProvider provider = provider(Map.of("wrong-suppress-count", "1"), embedder);
      String team = remember(provider, "team", "Team lunch is on Friday at noon");
      String global = remember(provider, "global", "The Friday demo starts at noon");
      wrong(provider, USER_1, team, 1);
      assertThat(provider.feedback(AGENT, USER_1, List.of(global))).isOne();
      wrong(provider, USER_2, global, 1);

      provider.forget(USER_1);

      assertThat(store(provider).trust(USER_1, List.of(team, global))).isEmpty();
      assertThat(ids(recall(provider, AGENT, USER_1, QUERY))).contains(team);
      assertThat(store(provider).trust(USER_2, List.of(global)).get(global).hidden()).isTrue();
    }
  }

  @Nested
  @DisplayName("Contradiction inbox")
  class Contradictions {

    private static final String OLD = "My locker code is 1111";
    private static final String NEW = "My locker code is 2222";

    private MemoryProvider checking() {
      return provider(Map.of("contradiction-check-enabled", "true"), embedder);
    }

    private JsonNode call(MemoryProvider provider, OwnerKey owner, String name, String args) {
      return JSON.readTree(
          provider.callTool(
              new ToolCall(AGENT, owner, name, args, java.util.EnumSet.allOf(Scope.class), "ann")));
    }

    private JsonNode inbox(MemoryProvider provider, OwnerKey owner) {
      return call(provider, owner, StandardTools.LIST_CONTRADICTIONS, "{}");
    }

    /** The old and the new statement, the new one in the inbox: {contradiction, old, new}. */
    private String[] conflict(MemoryProvider provider) {
      String old = remember(provider, OLD).get("id").asString();
      clock.advance(Duration.ofDays(1));
      JsonNode answer = remember(provider, NEW);
      assertThat(answer.get("pending").asBoolean()).isTrue();
      String incoming = answer.get("id").asString();
      return new String[] {answer.get("contradictions").get(0).asString(), old, incoming};
    }

    private JsonNode resolve(MemoryProvider provider, OwnerKey owner, String id, String decision) {
      return call(
          provider,
          owner,
          StandardTools.RESOLVE_CONTRADICTION,
          "{\"id\":\"" + id + "\",\"decision\":\"" + decision + "\"}");
    }

    private String status(MemoryProvider provider, String id) {
      return tool(provider, USER_1, "get_memory", "{\"id\":\"" + id + "\"}")
          .get("status")
          .asString();
    }

    private List<String> events(MemoryProvider provider, String id) {
      List<String> events = new ArrayList<>();
      for (JsonNode e :
          tool(provider, USER_1, "memory_history", "{\"id\":\"" + id + "\"}").get("events")) {
        events.add(e.get("event").asString());
      }
      return events;
    }

    private JsonNode decision(MemoryProvider provider, String id) {
      for (JsonNode e :
          tool(provider, USER_1, "memory_history", "{\"id\":\"" + id + "\"}").get("events")) {
        if (e.get("event").asString().equals("decision")) {
          return e;
        }
      }
      throw new AssertionError("no decision in the history of " + id);
    }

    @Test
    @DisplayName("off, a changed value supersedes as before and the inbox stays empty")
    void offSupersedesAsBefore() {
      MemoryProvider provider = provider();
      assertThat(provider.capabilities()).contains(Capability.CONTRADICTIONS);
      String old = remember(provider, OLD).get("id").asString();
      JsonNode answer = remember(provider, NEW);

      assertThat(answer.get("supersedes")).extracting(JsonNode::asString).containsExactly(old);
      assertThat(answer.has("pending")).isFalse();
      assertThat(status(provider, old)).isEqualTo("superseded");
      assertThat(inbox(provider, USER_1).get("total").asInt()).isZero();
    }

    @Test
    @DisplayName("on, a conflicting statement is kept pending, both in the inbox, the pair marked")
    void onKeepsBothAndMarksThePair() {
      MemoryProvider provider = checking();
      String[] c = conflict(provider);

      assertThat(status(provider, c[1])).isEqualTo("active");
      assertThat(status(provider, c[2])).isEqualTo("pending");
      JsonNode inbox = inbox(provider, USER_1);
      assertThat(inbox.get("total").asInt()).isEqualTo(1);
      JsonNode item = inbox.get("items").get(0);
      assertThat(item.get("id").asString()).isEqualTo(c[0]);
      assertThat(item.get("existing").get("text").asString()).isEqualTo(OLD);
      assertThat(item.get("incoming").get("text").asString()).isEqualTo(NEW);
      assertThat(item.get("incoming").get("status").asString()).isEqualTo("pending");
      assertThat(item.has("createdAt")).isTrue();

      List<RecallItem> recalled = recall(provider, AGENT, USER_1, "locker code");
      assertThat(recalled).hasSize(1);
      RecallItem marked = recalled.get(0);
      assertThat(marked.metadata())
          .containsEntry("contradiction", c[0])
          .containsEntry("contradictedBy", c[2])
          .containsEntry("pendingText", NEW);
      assertThat(marked.text()).startsWith(OLD).contains("disputed").contains(NEW);
      JsonNode tools = tool(provider, USER_1, "recall", "{\"query\":\"locker code\"}");
      assertThat(tools.get("items")).hasSize(1);
      assertThat(tools.get("items").get(0).get("contradiction").asString()).isEqualTo(c[0]);

      assertThat(events(provider, c[1])).contains("contradiction");
      assertThat(events(provider, c[2])).contains("contradiction");
      JsonNode counts = tool(provider, USER_1, "count_memories", "{}");
      assertThat(counts.get("byStatus").get("pending").asInt()).isEqualTo(1);
      assertThatThrownBy(
              () ->
                  tool(
                      provider,
                      USER_1,
                      "update_memory_status",
                      "{\"id\":\"" + c[2] + "\",\"status\":\"active\"}"))
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.CONFLICT);
    }

    @Test
    @DisplayName("keep-new activates the incoming memory and supersedes the existing one")
    void keepNew() {
      MemoryProvider provider = checking();
      String[] c = conflict(provider);

      JsonNode answer = resolve(provider, USER_1, c[0], "keep-new");

      assertThat(answer.get("decision").asString()).isEqualTo("keep-new");
      assertThat(answer.get("incoming").get("status").asString()).isEqualTo("active");
      assertThat(answer.get("existing").get("status").asString()).isEqualTo("superseded");
      assertThat(answer.get("existing").get("supersededBy").asString()).isEqualTo(c[2]);
      assertThat(answer.get("incoming").get("supersedes"))
          .extracting(JsonNode::asString)
          .containsExactly(c[1]);
      for (String[] pair : new String[][] {{c[1], c[2]}, {c[2], c[1]}}) {
        JsonNode event = decision(provider, pair[0]);
        assertThat(event.get("decision").asString()).isEqualTo("keep-new");
        assertThat(event.get("other").asString()).isEqualTo(pair[1]);
        assertThat(event.get("actor").asString()).isEqualTo("ann");
      }
      assertThat(texts(recall(provider, AGENT, USER_1, "locker code"))).containsExactly(NEW);
      assertThat(inbox(provider, USER_1).get("total").asInt()).isZero();
      assertThatThrownBy(() -> resolve(provider, USER_1, c[0], "keep-old"))
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.NOT_FOUND);
    }

    @Test
    @DisplayName("keep-old archives the incoming memory; keep-both keeps both active")
    void keepOldAndKeepBoth() {
      MemoryProvider provider = checking();
      String[] c = conflict(provider);

      resolve(provider, USER_1, c[0], "keep-old");

      assertThat(status(provider, c[1])).isEqualTo("active");
      assertThat(status(provider, c[2])).isEqualTo("archived");
      assertThat(decision(provider, c[1]).get("decision").asString()).isEqualTo("keep-old");
      assertThat(decision(provider, c[2]).get("status").asString()).isEqualTo("archived");
      assertThat(texts(recall(provider, AGENT, USER_1, "locker code"))).containsExactly(OLD);

      String old = remember(provider, "I am allergic to penicillin").get("id").asString();
      JsonNode answer = remember(provider, "I am not allergic to penicillin");
      String id = answer.get("contradictions").get(0).asString();
      resolve(provider, USER_1, id, "keep-both");

      assertThat(status(provider, old)).isEqualTo("active");
      assertThat(status(provider, answer.get("id").asString())).isEqualTo("active");
      assertThat(decision(provider, old).get("decision").asString()).isEqualTo("keep-both");
      assertThat(recall(provider, AGENT, USER_1, "allergic penicillin"))
          .hasSize(2)
          .allSatisfy(item -> assertThat(item.metadata()).doesNotContainKey("contradiction"));
      assertThat(inbox(provider, USER_1).get("total").asInt()).isZero();
      assertThatThrownBy(() -> resolve(provider, USER_1, id, "keep-all"))
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
    }

    @Test
    @DisplayName("another owner's inbox never changes, and their calls find nothing")
    void perOwner() {
      MemoryProvider provider = checking();
      tool(provider, USER_2, "remember", "{\"text\":\"" + OLD + "\"}");
      String[] c = conflict(provider);

      assertThat(inbox(provider, USER_2).get("total").asInt()).isZero();
      assertThatThrownBy(() -> resolve(provider, USER_2, c[0], "keep-new"))
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.NOT_FOUND);
      assertThat(status(provider, c[2])).isEqualTo("pending");
      assertThat(inbox(provider, USER_1).get("total").asInt()).isEqualTo(1);
      assertThat(provider.forget(USER_2)).isEqualTo(1);
      assertThat(inbox(provider, USER_1).get("total").asInt()).isEqualTo(1);
    }

    @Test
    @DisplayName("erasing the owner removes their inbox; forgetting a memory closes its rows")
    void erasureAndForgets() {
      MemoryProvider provider = checking();
      String[] c = conflict(provider);
      provider.close();
      MemoryProvider reopened = checking();
      assertThat(inbox(reopened, USER_1).get("total").asInt()).as("durable").isEqualTo(1);

      tool(reopened, USER_1, "delete_memory", "{\"id\":\"" + c[2] + "\"}");
      assertThat(inbox(reopened, USER_1).get("total").asInt()).isZero();
      assertThat(status(reopened, c[1])).isEqualTo("active");

      String pending = remember(reopened, NEW).get("id").asString();
      assertThat(inbox(reopened, USER_1).get("total").asInt()).isEqualTo(1);
      tool(reopened, USER_1, "delete_memory", "{\"id\":\"" + c[1] + "\"}");
      assertThat(inbox(reopened, USER_1).get("total").asInt()).isZero();
      assertThat(status(reopened, pending)).as("nothing left to contradict").isEqualTo("active");

      remember(reopened, "My locker code is 3333");
      assertThat(inbox(reopened, USER_1).get("total").asInt()).isEqualTo(1);
      reopened.forget(USER_1);
      assertThat(inbox(reopened, USER_1).get("total").asInt()).isZero();
    }
  }

  @Nested
  @DisplayName("Forgetting")
  class Forgetting {

    @Test
    @DisplayName("deletes every record of the owner in every agent and counts them")
    void deletesEveryRecordOfTheOwner() {
      MemoryProvider provider = provider();
      provider.syncTurn(turn(AGENT, USER_1, "alpha fact of user one", "ok"));
      provider.syncTurn(turn(OTHER_AGENT, USER_1, "beta fact of user one", "ok"));
      provider.syncTurn(turn(AGENT, USER_2, "gamma fact of user two", "ok"));
      tool(provider, USER_1, "remember", "{\"text\":\"User one likes tea\"}");

      assertThat(provider.forget(USER_1)).isEqualTo(3); // the replies "ok" are filler
      assertThat(recall(provider, AGENT, USER_1, "fact user one tea")).isEmpty();
      assertThat(recall(provider, OTHER_AGENT, USER_1, "fact user one")).isEmpty();
      assertThat(recall(provider, AGENT, USER_2, "gamma fact")).isNotEmpty();
      assertThat(provider.forget(USER_1)).isZero();
    }
  }

  @Nested
  @DisplayName("Tools")
  class Tools {

    @Test
    @DisplayName("remember stores a typed memory once and answers a duplicate with its id")
    void rememberDeduplicates() {
      MemoryProvider provider = provider();
      JsonNode first =
          tool(
              provider,
              USER_1,
              "remember",
              "{\"text\":\"Prefers answers as tables\",\"type\":\"preference\"}");
      assertThat(first.get("stored").asBoolean()).isTrue();
      assertThat(first.get("memory").get("type").asString()).isEqualTo("PREFERENCE");
      assertThat(first.get("memory").get("scope").asString()).isEqualTo("personal");

      clock.advance(Duration.ofDays(3));
      JsonNode again =
          tool(provider, USER_1, "remember", "{\"text\":\"prefers  answers as tables\"}");
      assertThat(again.get("stored").asBoolean()).isFalse();
      assertThat(again.get("duplicateOf").asString()).isEqualTo(first.get("id").asString());

      JsonNode other =
          tool(provider, USER_2, "remember", "{\"text\":\"Prefers answers as tables\"}");
      assertThat(other.get("stored").asBoolean()).as("another owner's copy").isTrue();
    }

    @Test
    @DisplayName("remember supersedes a memory whose value it changes, in English and Chinese")
    void rememberSupersedes() {
      MemoryProvider provider = provider();
      String[][] updates = {
        {"I am allergic to penicillin", "I am not allergic to penicillin"},
        {"My locker code is 1111", "My locker code is 2222"},
        {"我对青霉素过敏", "我对青霉素不过敏"},
        {"我的储物柜密码是1111", "我的储物柜密码是2222"}
      };
      for (String[] update : updates) {
        String oldId = remember(provider, update[0]).get("id").asString();
        clock.advance(Duration.ofDays(1));

        JsonNode answer = remember(provider, update[1]);

        assertThat(answer.get("stored").asBoolean()).as(update[1]).isTrue();
        String newId = answer.get("id").asString();
        assertThat(answer.get("supersedes")).extracting(JsonNode::asString).containsExactly(oldId);
        assertThat(answer.get("superseded").get(0).get("status").asString())
            .isEqualTo("superseded");
        assertThat(answer.get("memory").get("supersedes"))
            .extracting(JsonNode::asString)
            .containsExactly(oldId);
        // asked with the old statement itself: only the new one is recalled
        List<RecallItem> recalled = recall(provider, AGENT, USER_1, update[0]);
        assertThat(texts(recalled)).as(update[0]).contains(update[1]).doesNotContain(update[0]);

        JsonNode history = tool(provider, USER_1, "list_memories", "{\"status\":\"superseded\"}");
        JsonNode old = null;
        for (JsonNode item : history.get("items")) {
          if (item.get("id").asString().equals(oldId)) {
            old = item;
          }
        }
        assertThat(old).as("the superseded %s is kept", update[0]).isNotNull();
        assertThat(old.get("text").asString()).isEqualTo(update[0]);
        assertThat(old.get("supersededBy").asString()).isEqualTo(newId);
      }
      assertThat(tool(provider, USER_1, "list_memories", "{}").get("total").asInt()).isEqualTo(8);
    }

    @Test
    @DisplayName("remember takes a paraphrase as a duplicate and stores an unrelated memory")
    void rememberParaphraseAndUnrelated() {
      MemoryProvider provider = provider();
      String allergy = remember(provider, "I am allergic to penicillin").get("id").asString();
      String locker = remember(provider, "My locker code is 1111").get("id").asString();

      JsonNode paraphrase = remember(provider, "I'm allergic to penicillin");
      assertThat(paraphrase.get("stored").asBoolean()).isFalse();
      assertThat(paraphrase.get("duplicateOf").asString()).isEqualTo(allergy);
      JsonNode reworded = remember(provider, "The code of my locker is 1111");
      assertThat(reworded.get("stored").asBoolean()).isFalse();
      assertThat(reworded.get("duplicateOf").asString()).isEqualTo(locker);
      assertThat(reworded.has("supersedes")).isFalse();

      JsonNode unrelated = remember(provider, "I am allergic to peanuts");
      assertThat(unrelated.get("stored").asBoolean()).isTrue();
      assertThat(unrelated.has("supersedes")).isFalse();
      JsonNode bike = remember(provider, "My bike lock code is 2222");
      assertThat(bike.get("stored").asBoolean()).isTrue();
      assertThat(bike.has("supersedes")).isFalse();
      assertThat(recall(provider, AGENT, USER_1, "allergic penicillin peanuts")).hasSize(2);
    }

    @Test
    @DisplayName("remember brings an older value back and supersedes only within the owner")
    void rememberRestatesAnOlderValue() {
      MemoryProvider provider = provider();
      String first = remember(provider, "My locker code is 1111").get("id").asString();
      String second = remember(provider, "My locker code is 2222").get("id").asString();
      JsonNode other = tool(provider, USER_2, "remember", "{\"text\":\"My locker code is 3333\"}");
      assertThat(other.has("supersedes")).as("another owner's memory").isFalse();

      JsonNode again = remember(provider, "My locker code is 1111");

      assertThat(again.get("stored").asBoolean()).isTrue();
      assertThat(again.get("id").asString()).isEqualTo(first);
      assertThat(again.get("supersedes")).extracting(JsonNode::asString).containsExactly(second);
      assertThat(texts(recall(provider, AGENT, USER_1, "locker code")))
          .containsExactly("My locker code is 1111");
      assertThat(texts(recall(provider, AGENT, USER_2, "locker code")))
          .containsExactly("My locker code is 3333");
    }

    @Test
    @DisplayName("remember lets a turn that says it already supersede the value it changes")
    void rememberConfirmsATurn() {
      MemoryProvider provider = provider(Map.of("capture", "user"), embedder);
      String remembered = remember(provider, "My locker code is 1111").get("id").asString();
      provider.syncTurn(turn(USER_1, "My locker code is 2222", "ok")); // turns supersede nothing
      assertThat(recall(provider, AGENT, USER_1, "My locker code is 1111")).hasSize(2);

      JsonNode answer = remember(provider, "My locker code is 2222");

      assertThat(answer.get("stored").asBoolean()).isFalse();
      String turnRecord = answer.get("duplicateOf").asString();
      assertThat(answer.get("memory").get("role").asString()).isEqualTo("user");
      assertThat(answer.get("supersedes"))
          .extracting(JsonNode::asString)
          .containsExactly(remembered);
      assertThat(answer.get("memory").get("supersedes"))
          .extracting(JsonNode::asString)
          .containsExactly(remembered);
      List<RecallItem> recalled = recall(provider, AGENT, USER_1, "My locker code is 1111");
      assertThat(recalled).extracting(i -> i.metadata().get("id")).containsExactly(turnRecord);
    }

    @Test
    @DisplayName("update_memory_status activates a superseded memory but never sets superseded")
    void activatesASupersededMemory() {
      MemoryProvider provider = provider();
      String old = remember(provider, "The meeting is on Monday").get("id").asString();
      remember(provider, "The meeting is on Tuesday");
      assertThatThrownBy(
              () ->
                  tool(
                      provider,
                      USER_1,
                      "update_memory_status",
                      "{\"id\":\"" + old + "\",\"status\":\"superseded\"}"))
          .isInstanceOf(ToolException.class)
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.INVALID_ARGUMENT);

      JsonNode changed =
          tool(
              provider,
              USER_1,
              "update_memory_status",
              "{\"id\":\"" + old + "\",\"status\":\"active\"}");

      assertThat(changed.get("previous").asString()).isEqualTo("superseded");
      JsonNode item = tool(provider, USER_1, "list_memories", "{\"status\":\"active\"}");
      assertThat(item.get("total").asInt()).isEqualTo(2);
      for (JsonNode memory : item.get("items")) {
        assertThat(memory.has("supersededBy")).isFalse();
      }
    }

    @Test
    @DisplayName("remember refuses a personal memory without an owner and bad arguments")
    void rememberRefusesBadArguments() {
      MemoryProvider provider = provider();
      assertThatThrownBy(() -> tool(provider, null, "remember", "{\"text\":\"x\"}"))
          .isInstanceOf(ToolException.class)
          .hasMessageContaining("owner")
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
      assertThatThrownBy(() -> tool(provider, USER_1, "remember", "{\"txt\":\"x\"}"))
          .isInstanceOf(ToolException.class)
          .hasMessageContaining("txt")
          .extracting(e -> ((ToolException) e).field())
          .isEqualTo("txt");
      assertThatThrownBy(
              () -> tool(provider, USER_1, "remember", "{\"text\":\"x\",\"scope\":\"galaxy\"}"))
          .isInstanceOf(ToolException.class)
          .hasMessageContaining("scope")
          .extracting(e -> ((ToolException) e).field())
          .isEqualTo("scope");
      assertThatThrownBy(() -> tool(provider, USER_1, "recall", "{\"query\":\"x\",\"limit\":99}"))
          .extracting(e -> ((ToolException) e).field())
          .isEqualTo("limit");
      assertThatThrownBy(
              () -> tool(provider, USER_1, "list_memories", "{\"status\":[\"active\",7]}"))
          .extracting(e -> ((ToolException) e).field())
          .isEqualTo("status/1");
      assertThatThrownBy(() -> tool(provider, USER_1, "remember", "{}"))
          .extracting(e -> ((ToolException) e).field())
          .isEqualTo("text");
      assertThatThrownBy(() -> tool(provider, USER_1, "remember", "not json"))
          .isInstanceOf(ToolException.class)
          .hasMessageContaining("JSON");
    }

    @Test
    @DisplayName("recall filters by type, status and time and explains its ranking")
    void recallFilters() {
      MemoryProvider provider = provider();
      tool(
          provider,
          USER_1,
          "remember",
          "{\"text\":\"Decided to use Postgres for orders\",\"type\":\"decision\"}");
      clock.advance(Duration.ofDays(2));
      tool(
          provider,
          USER_1,
          "remember",
          "{\"text\":\"Postgres backups run nightly\",\"type\":\"fact\"}");

      JsonNode decisions =
          tool(provider, USER_1, "recall", "{\"query\":\"Postgres\",\"type\":\"DECISION\"}");
      assertThat(decisions.get("items")).hasSize(1);
      assertThat(decisions.get("items").get(0).get("text").asString()).contains("Decided");
      assertThat(decisions.get("items").get(0).get("signals").has("fused")).isTrue();

      JsonNode recent =
          tool(provider, USER_1, "recall", "{\"query\":\"Postgres\",\"since\":\"2026-03-03\"}");
      assertThat(recent.get("items")).hasSize(1);
      assertThat(recent.get("items").get(0).get("text").asString()).contains("backups");

      JsonNode both =
          tool(
              provider,
              USER_1,
              "recall",
              "{\"query\":\"Postgres\",\"type\":[\"fact\",\"decision\"]}");
      assertThat(both.get("items")).hasSize(2);
      assertThat(tool(provider, USER_2, "recall", "{\"query\":\"Postgres\"}").get("items"))
          .isEmpty();
    }

    @Test
    @DisplayName("list_memories pages newest first and filters by status")
    void listMemoriesPages() {
      MemoryProvider provider = provider(Map.of("capture", "user"), embedder);
      for (int i = 0; i < 5; i++) {
        provider.syncTurn(turn(USER_1, "note " + i, "ok"));
      }
      JsonNode page = tool(provider, USER_1, "list_memories", "{\"offset\":1,\"limit\":2}");
      assertThat(page.get("total").asInt()).isEqualTo(5);
      assertThat(page.get("items")).hasSize(2);
      assertThat(page.get("items").get(0).get("text").asString()).isEqualTo("user: note 3");
      assertThat(page.get("items").get(1).get("text").asString()).isEqualTo("user: note 2");

      String id = page.get("items").get(0).get("id").asString();
      tool(
          provider,
          USER_1,
          "update_memory_status",
          "{\"id\":\"" + id + "\",\"status\":\"suppressed\"}");
      JsonNode suppressed = tool(provider, USER_1, "list_memories", "{\"status\":\"suppressed\"}");
      assertThat(suppressed.get("total").asInt()).isEqualTo(1);
      assertThat(suppressed.get("items").get(0).get("status").asString()).isEqualTo("suppressed");
      assertThat(tool(provider, USER_2, "list_memories", "{}").get("total").asInt()).isZero();
    }

    @Test
    @DisplayName("update_memory_status refuses transitions the lifecycle does not have")
    void updateStatusRefusesBadTransitions() {
      MemoryProvider provider = provider();
      String id = tool(provider, USER_1, "remember", "{\"text\":\"a fact\"}").get("id").asString();

      assertThatThrownBy(
              () ->
                  tool(
                      provider,
                      USER_1,
                      "update_memory_status",
                      "{\"id\":\"" + id + "\",\"status\":\"active\"}"))
          .isInstanceOf(ToolException.class)
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.CONFLICT);
      tool(
          provider,
          USER_1,
          "update_memory_status",
          "{\"id\":\"" + id + "\",\"status\":\"archived\"}");
      assertThatThrownBy(
              () ->
                  tool(
                      provider,
                      USER_1,
                      "update_memory_status",
                      "{\"id\":\"" + id + "\",\"status\":\"suppressed\"}"))
          .isInstanceOf(ToolException.class)
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.CONFLICT);
    }

    @Test
    @DisplayName("delete_memory deletes the caller's memory but never another owner's")
    void deleteMemory() {
      MemoryProvider provider = provider();
      String id =
          tool(provider, USER_1, "remember", "{\"text\":\"secret of user one\"}")
              .get("id")
              .asString();

      assertThatThrownBy(() -> tool(provider, USER_2, "delete_memory", "{\"id\":\"" + id + "\"}"))
          .isInstanceOf(ToolException.class)
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.NOT_FOUND);
      assertThatThrownBy(
              () ->
                  tool(
                      provider,
                      USER_2,
                      "update_memory_status",
                      "{\"id\":\"" + id + "\",\"status\":\"archived\"}"))
          .isInstanceOf(ToolException.class)
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.NOT_FOUND);

      JsonNode deleted = tool(provider, USER_1, "delete_memory", "{\"id\":\"" + id + "\"}");
      assertThat(deleted.get("deleted").asBoolean()).isTrue();
      assertThat(tool(provider, USER_1, "list_memories", "{}").get("total").asInt()).isZero();
      assertThatThrownBy(() -> tool(provider, USER_1, "delete_memory", "{\"id\":\"" + id + "\"}"))
          .isInstanceOf(ToolException.class);
    }

    @Test
    @DisplayName("an unknown tool is NOT_FOUND")
    void unknownTool() {
      MemoryProvider provider = provider();
      assertThatThrownBy(() -> tool(provider, USER_1, "teleport", "{}"))
          .isInstanceOf(ToolException.class)
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.NOT_FOUND);
    }
  }

  @Nested
  @DisplayName("Configuration and models")
  class ConfigurationAndModels {

    @Test
    @DisplayName("rejects a bad value or an unknown key, naming the key")
    void rejectsBadConfiguration() {
      assertThatThrownBy(() -> provider(Map.of("threshold", "2"), embedder))
          .isInstanceOf(ProviderConfigException.class)
          .hasMessageContaining("memstack.providers.vector.config.threshold");
      assertThatThrownBy(() -> provider(Map.of("capture", "everything"), embedder))
          .isInstanceOf(ProviderConfigException.class)
          .hasMessageContaining("capture")
          .hasMessageContaining("exchange");
      assertThatThrownBy(() -> provider(Map.of("top-k", "many"), embedder))
          .isInstanceOf(ProviderConfigException.class)
          .hasMessageContaining("top-k");
      assertThatThrownBy(() -> provider(Map.of("treshold", "0.4"), embedder))
          .isInstanceOf(ProviderConfigException.class)
          .hasMessageContaining("memstack.providers.vector.config.treshold");
      assertThatThrownBy(() -> provider(Map.of("store", "redis"), embedder))
          .isInstanceOf(ProviderConfigException.class)
          .hasMessageContaining("store");
    }

    @Test
    @DisplayName("refuses to start on another model until reembed=true rebuilds the vectors")
    void refusesAnotherModelUntilReembed() {
      MemoryProvider first = provider();
      first.syncTurn(turn(USER_1, "I adopted a greyhound named Biscuit", "Lovely"));
      first.close();

      Embedder other = new RenamedEmbedder(new HashingEmbedder(), "hashing-v2");
      assertThatThrownBy(() -> provider(Map.of(), other))
          .isInstanceOf(ProviderConfigException.class)
          .hasMessageContaining("memstack.providers.vector.config.reembed")
          .hasMessageContaining("hashing-384")
          .hasMessageContaining("hashing-v2");

      MemoryProvider reembedded = provider(Map.of("reembed", "true"), other);
      assertThat(texts(recall(reembedded, AGENT, USER_1, "greyhound")))
          .anyMatch(t -> t.contains("Biscuit"));
      reembedded.close();
      // once rebuilt, the new model starts without the setting
      assertThat(texts(recall(provider(Map.of(), other), AGENT, USER_1, "greyhound")))
          .anyMatch(t -> t.contains("Biscuit"));
    }

    @Test
    @DisplayName("fails every hook after close with IllegalStateException")
    void failsAfterClose() {
      MemoryProvider provider = provider();
      provider.close();
      assertThatThrownBy(() -> recall(provider, AGENT, USER_1, "x"))
          .isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> tool(provider, USER_1, "list_memories", "{}"))
          .isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(() -> provider.forget(USER_1)).isInstanceOf(IllegalStateException.class);
    }
  }

  @Nested
  @DisplayName("memories one by one (MEMORY_ADMIN)")
  class Admin {

    private JsonNode call(MemoryProvider provider, OwnerKey owner, String name, String args) {
      return JSON.readTree(
          provider.callTool(
              new ToolCall(
                  AGENT, owner, name, args, java.util.EnumSet.allOf(Scope.class), "console")));
    }

    private String remembered(MemoryProvider provider, OwnerKey owner, String text) {
      return call(provider, owner, "remember", "{\"text\":\"" + text + "\"}").get("id").asString();
    }

    @Test
    @DisplayName("claims the capability and offers every standard tool with its declared effect")
    void offersTheStandardTools() {
      MemoryProvider provider = provider();
      assertThat(provider.capabilities()).contains(Capability.MEMORY_ADMIN);
      Map<String, ToolSpec> specs = new HashMap<>();
      provider.tools().forEach(s -> specs.put(s.name(), s));
      for (String name : StandardTools.required(Capability.MEMORY_ADMIN)) {
        assertThat(specs).containsKey(name);
        assertThat(specs.get(name).effect() == ToolSpec.Effect.READ)
            .as(name)
            .isEqualTo(StandardTools.readOnly(name));
      }
    }

    @Test
    @DisplayName("edits with optimistic locking and keeps the earlier text in the history")
    void editsWithOptimisticLocking() {
      MemoryProvider provider = provider();
      String id = remembered(provider, USER_1, "My bike is blue");
      JsonNode item = call(provider, USER_1, "get_memory", "{\"id\":\"" + id + "\"}");
      assertThat(item.get("text").asString()).isEqualTo("My bike is blue");
      String read = item.get("updatedAt").asString();
      assertThat(read).isEqualTo(item.get("createdAt").asString());

      clock.advance(Duration.ofMinutes(5));
      JsonNode edited =
          call(
              provider,
              USER_1,
              "edit_memory",
              "{\"id\":\""
                  + id
                  + "\",\"text\":\"My bike is green\",\"updatedAt\":\""
                  + read
                  + "\"}");
      assertThat(edited.get("changed").asBoolean()).isTrue();
      assertThat(edited.get("text").asString()).isEqualTo("My bike is green");
      assertThat(edited.get("updatedAt").asString()).isNotEqualTo(read);
      assertThat(texts(recall(provider, AGENT, USER_1, "bike green")))
          .anyMatch(t -> t.contains("green"));

      // the same read again is stale: refused, nothing written
      assertThatThrownBy(
              () ->
                  call(
                      provider,
                      USER_1,
                      "edit_memory",
                      "{\"id\":\""
                          + id
                          + "\",\"text\":\"My bike is red\",\"updatedAt\":\""
                          + read
                          + "\"}"))
          .isInstanceOfSatisfying(
              ToolException.class,
              e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.CONFLICT));
      assertThat(
              call(provider, USER_1, "get_memory", "{\"id\":\"" + id + "\"}")
                  .get("text")
                  .asString())
          .isEqualTo("My bike is green");

      JsonNode events =
          call(provider, USER_1, "memory_history", "{\"id\":\"" + id + "\"}").get("events");
      assertThat(events).hasSize(2);
      assertThat(events.get(0).get("event").asString()).isEqualTo("added");
      assertThat(events.get(0).get("text").asString()).isEqualTo("My bike is blue");
      assertThat(events.get(1).get("event").asString()).isEqualTo("updated");
      assertThat(events.get(1).get("previous").asString()).isEqualTo("My bike is blue");
      assertThat(events.get(1).get("text").asString()).isEqualTo("My bike is green");
      assertThat(events.get(1).get("actor").asString()).isEqualTo("console");
    }

    @Test
    @DisplayName("records status changes and a supersession in both memories' histories")
    void recordsStatusAndSupersession() {
      MemoryProvider provider = provider();
      String id = remembered(provider, USER_1, "I have 2 cats");
      clock.advance(Duration.ofMinutes(1));
      String newer = remembered(provider, USER_1, "I have 3 cats");
      assertThat(newer).isNotEqualTo(id);
      JsonNode old =
          call(provider, USER_1, "memory_history", "{\"id\":\"" + id + "\"}").get("events");
      assertThat(old.get(old.size() - 1).get("event").asString()).isEqualTo("superseded");
      assertThat(old.get(old.size() - 1).get("other").asString()).isEqualTo(newer);
      JsonNode fresh =
          call(provider, USER_1, "memory_history", "{\"id\":\"" + newer + "\"}").get("events");
      assertThat(fresh.get(fresh.size() - 1).get("event").asString()).isEqualTo("supersedes");
      assertThat(fresh.get(fresh.size() - 1).get("previous").asString()).isEqualTo("I have 2 cats");

      clock.advance(Duration.ofMinutes(1));
      call(
          provider,
          USER_1,
          "update_memory_status",
          "{\"id\":\"" + newer + "\",\"status\":\"archived\"}");
      JsonNode after =
          call(provider, USER_1, "memory_history", "{\"id\":\"" + newer + "\"}").get("events");
      JsonNode last = after.get(after.size() - 1);
      assertThat(last.get("event").asString()).isEqualTo("status");
      assertThat(last.get("status").asString()).isEqualTo("archived");
      assertThat(last.get("previousStatus").asString()).isEqualTo("active");
      assertThat(last.get("actor").asString()).isEqualTo("console");
      // a status change moves updatedAt, so an edit made on the earlier read is stale
      JsonNode item = call(provider, USER_1, "get_memory", "{\"id\":\"" + newer + "\"}");
      assertThat(item.get("status").asString()).isEqualTo("archived");
      assertThat(item.get("updatedAt").asString()).isNotEqualTo(item.get("createdAt").asString());
    }

    @Test
    @DisplayName("forgets a memory from its history too: only that a forget happened stays")
    void forgetsFromHistory() {
      MemoryProvider provider = provider();
      String id = remembered(provider, USER_1, "My locker code is 4812");
      String read =
          call(provider, USER_1, "get_memory", "{\"id\":\"" + id + "\"}")
              .get("updatedAt")
              .asString();
      clock.advance(Duration.ofMinutes(1));
      call(
          provider,
          USER_1,
          "edit_memory",
          "{\"id\":\""
              + id
              + "\",\"text\":\"My locker code is 9907\",\"updatedAt\":\""
              + read
              + "\"}");
      call(provider, USER_1, "delete_memory", "{\"id\":\"" + id + "\"}");

      JsonNode history = call(provider, USER_1, "memory_history", "{\"id\":\"" + id + "\"}");
      assertThat(history.get("forgotten").asBoolean()).isTrue();
      assertThat(history.get("events")).hasSize(1);
      assertThat(history.get("events").get(0).get("event").asString()).isEqualTo("forgotten");
      assertThat(history.toString()).doesNotContain("4812").doesNotContain("9907");
      // another owner does not learn that it existed
      assertThatThrownBy(() -> call(provider, USER_2, "memory_history", "{\"id\":\"" + id + "\"}"))
          .isInstanceOfSatisfying(
              ToolException.class,
              e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.NOT_FOUND));
      // and nothing of the text stays in the store's files either (embedded store)
      provider.close();
      assertThat(filesHolding("4812")).isEmpty();
      assertThat(filesHolding("9907")).isEmpty();
    }

    @Test
    @DisplayName("a memory marked wrong enough times is suppressed, and its history says why")
    void wrongSuppressesWithHistory() {
      MemoryProvider provider = provider();
      String id = remembered(provider, USER_1, "My dentist is Dr Moss");
      for (int i = 0; i < 3; i++) {
        clock.advance(Duration.ofMinutes(1));
        provider.wrong(AGENT, USER_1, List.of(id));
      }
      JsonNode item = call(provider, USER_1, "get_memory", "{\"id\":\"" + id + "\"}");
      assertThat(item.get("status").asString()).isEqualTo("suppressed");
      JsonNode events =
          call(provider, USER_1, "memory_history", "{\"id\":\"" + id + "\"}").get("events");
      assertThat(events).filteredOn(e -> e.get("event").asString().equals("trust")).hasSize(3);
      JsonNode last = events.get(events.size() - 1);
      assertThat(last.get("event").asString()).isEqualTo("status");
      assertThat(last.get("status").asString()).isEqualTo("suppressed");
      assertThat(last.get("reason").asString()).isEqualTo("marked wrong 3 times");
      assertThat(item.get("updatedAt").asString()).isNotEqualTo(item.get("createdAt").asString());
    }

    @Test
    @DisplayName("erasing an owner removes their memories' histories, forgets included")
    void erasureRemovesHistories() {
      MemoryProvider provider = provider();
      String kept = remembered(provider, USER_2, "I like jazz");
      String id = remembered(provider, USER_1, "I like opera");
      call(
          provider,
          USER_1,
          "update_memory_status",
          "{\"id\":\"" + id + "\",\"status\":\"archived\"}");
      call(
          provider,
          USER_2,
          "update_memory_status",
          "{\"id\":\"" + kept + "\",\"status\":\"archived\"}");
      String gone = remembered(provider, USER_1, "I like techno");
      call(provider, USER_1, "delete_memory", "{\"id\":\"" + gone + "\"}");
      provider.forget(USER_1);
      assertThatThrownBy(
              () -> call(provider, USER_1, "memory_history", "{\"id\":\"" + gone + "\"}"))
          .isInstanceOf(ToolException.class);
      assertThat(
              call(provider, USER_2, "memory_history", "{\"id\":\"" + kept + "\"}").get("events"))
          .hasSize(2);
    }

    @Test
    @DisplayName("counts and lists by status, type and text, for the owner only")
    void countsAndLists() {
      MemoryProvider provider = provider();
      remembered(provider, USER_1, "I play the violin");
      String id = remembered(provider, USER_1, "I collect stamps");
      remembered(provider, USER_2, "I play the drums");
      call(
          provider,
          USER_1,
          "update_memory_status",
          "{\"id\":\"" + id + "\",\"status\":\"suppressed\"}");
      JsonNode count = call(provider, USER_1, "count_memories", "{}");
      assertThat(count.get("total").asLong()).isEqualTo(2);
      assertThat(count.get("byStatus").get("active").asLong()).isEqualTo(1);
      assertThat(count.get("byStatus").get("suppressed").asLong()).isEqualTo(1);
      assertThat(count.get("byType").get("FACT").asLong()).isEqualTo(2);
      JsonNode listed = call(provider, USER_1, "list_memories", "{\"text\":\"play\"}");
      assertThat(listed.get("total").asLong()).isEqualTo(1);
      assertThat(listed.get("items").get(0).get("text").asString()).isEqualTo("I play the violin");
      assertThat(
              call(provider, USER_1, "count_memories", "{\"text\":\"play\"}").get("total").asLong())
          .isEqualTo(1);
      assertThatThrownBy(() -> call(provider, USER_2, "get_memory", "{\"id\":\"" + id + "\"}"))
          .isInstanceOfSatisfying(
              ToolException.class,
              e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.NOT_FOUND));
    }

    @Test
    @DisplayName("lists the agent's owners with their counts; an owner's call sees itself alone")
    void listsOwners() {
      MemoryProvider provider = provider();
      remembered(provider, USER_1, "I play the violin");
      remembered(provider, USER_1, "I collect stamps");
      remembered(provider, USER_2, "I play the drums");
      call(
          provider,
          null,
          "remember",
          "{\"text\":\"The team meets on Mondays\",\"scope\":\"team\"}");

      JsonNode all = call(provider, null, StandardTools.LIST_OWNERS, "{}");
      assertThat(all.get("total").asLong()).isEqualTo(2);
      assertThat(all.get("owners").toString())
          .isEqualTo(
              "[{\"ownerKey\":\"user:1\",\"count\":2},{\"ownerKey\":\"user:2\",\"count\":1}]");
      JsonNode paged =
          call(provider, null, StandardTools.LIST_OWNERS, "{\"offset\":1,\"limit\":1}");
      assertThat(paged.get("total").asLong()).isEqualTo(2);
      assertThat(paged.get("owners").get(0).get("ownerKey").asString()).isEqualTo("user:2");
      assertThat(
              call(provider, null, StandardTools.LIST_OWNERS, "{\"q\":\"R:2\"}")
                  .get("total")
                  .asLong())
          .isEqualTo(1);
      JsonNode own = call(provider, USER_2, StandardTools.LIST_OWNERS, "{\"prefix\":\"user:\"}");
      assertThat(own.get("owners").toString()).isEqualTo("[{\"ownerKey\":\"user:2\",\"count\":1}]");
      assertThatThrownBy(() -> call(provider, null, StandardTools.LIST_OWNERS, "{\"limit\":0}"))
          .isInstanceOfSatisfying(
              ToolException.class,
              e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT));

      // the agent's whole memory: both owners' and the team's
      JsonNode everything = call(provider, null, "count_memories", "{\"allOwners\":true}");
      assertThat(everything.get("total").asLong()).isEqualTo(4);
      assertThat(everything.get("byStatus").get("active").asLong()).isEqualTo(4);
      assertThat(call(provider, null, "count_memories", "{}").get("total").asLong()).isEqualTo(1);
      assertThatThrownBy(() -> call(provider, USER_1, "count_memories", "{\"allOwners\":true}"))
          .isInstanceOfSatisfying(
              ToolException.class, e -> assertThat(e.field()).isEqualTo("allOwners"));
    }

    @Test
    @DisplayName("lists each memory with its weight and the calling owner's trust in it")
    void listsWeightAndTrust() {
      MemoryProvider provider = provider();
      String violin = remembered(provider, USER_1, "I play the violin");
      remembered(provider, USER_1, "I collect stamps");
      provider.wrong(AGENT, USER_1, List.of(violin));

      JsonNode items = call(provider, USER_1, "list_memories", "{}").get("items");
      assertThat(items).hasSize(2);
      for (JsonNode item : items) {
        assertThat(item.get("weight").asDouble()).as(item.toString()).isEqualTo(1.0);
        double trust = item.get("trust").asDouble();
        if (item.get("id").asString().equals(violin)) {
          assertThat(trust).as("marked wrong once").isLessThan(-0.4);
        } else {
          assertThat(trust).isZero();
        }
      }
      assertThat(
              call(provider, USER_1, "get_memory", "{\"id\":\"" + violin + "\"}")
                  .get("trust")
                  .asDouble())
          .isLessThan(-0.4);
      // trust is an owner's own: the shared view carries none
      call(
          provider, null, "remember", "{\"text\":\"The office opens at nine\",\"scope\":\"team\"}");
      assertThat(call(provider, null, "list_memories", "{}").get("items").get(0).has("trust"))
          .isFalse();
    }
  }

  @Nested
  @DisplayName("Structured consolidation of the typed memories")
  class StructuredConsolidation {

    private static final String RUN = StandardTools.RUN_STRUCTURED_CONSOLIDATION;

    private MemoryVectorStore store(MemoryProvider provider) {
      return ((VectorMemoryProvider) provider).parts().store();
    }

    private MemoryProvider consolidating(ScriptedLanguageModel model, Map<String, String> extra) {
      return provider(extra, model, Coordination.local(clock), dataDir);
    }

    /** Stores a typed fact of the owner as fact extraction does, a minute after the last one. */
    private String fact(MemoryProvider provider, OwnerKey owner, String type, String text) {
      clock.advance(Duration.ofMinutes(1));
      Instant at = clock.instant();
      Map<String, Object> extra =
          new HashMap<>(Lifecycle.initial(dev.memstack.vector.lifecycle.Importance.NORMAL, at));
      extra.put("source", "facts");
      String id =
          java.util.UUID.nameUUIDFromBytes((owner + "|" + type + "|" + text).getBytes()).toString();
      MemoryRecord record =
          new MemoryRecord(
              id,
              "[" + at.toString().substring(0, 10) + "] " + text,
              AGENT,
              owner,
              Scope.PERSONAL,
              MemoryStatus.ACTIVE,
              type,
              "conv-1",
              null,
              at,
              extra);
      store(provider).add(List.of(record.toDocument()));
      return id;
    }

    private List<String> facts(MemoryProvider provider, OwnerKey owner, String... texts) {
      List<String> ids = new ArrayList<>();
      for (String text : texts) {
        ids.add(fact(provider, owner, "FACT", text));
      }
      return ids;
    }

    private MemoryRecord record(MemoryProvider provider, String id) {
      return MemoryRecord.fromDocument(store(provider).get(id).orElseThrow());
    }

    private List<MemoryRecord> active(MemoryProvider provider, OwnerKey owner, String type) {
      return store(provider)
          .list(
              MemoryFilters.and(
                  MemoryFilters.and(
                      MemoryFilters.ofOwner(owner), MemoryFilters.eq(MemoryVectorStore.TYPE, type)),
                  MemoryFilters.eq(MemoryVectorStore.STATUS, "ACTIVE")),
              0,
              100)
          .stream()
          .map(MemoryRecord::fromDocument)
          .toList();
    }

    private List<String> events(MemoryProvider provider, String id) {
      return store(provider).history().of(id).stream().map(e -> e.event()).toList();
    }

    private JsonNode run(MemoryProvider provider, OwnerKey owner) {
      return tool(provider, owner, RUN, "{}");
    }

    private static String answer(String... entries) {
      return "{\"reason\": \"tidied\", \"merged\": [\"duplicates merged\"], \"entries\": ["
          + String.join(", ", entries)
          + "]}";
    }

    private static String entry(String text, int... from) {
      return "{\"from\": " + java.util.Arrays.toString(from) + ", \"text\": \"" + text + "\"}";
    }

    private static final String[] NINE = {
      "The user drinks coffee every morning",
      "The user has a coffee each morning",
      "Every morning the user drinks coffee",
      "The user starts each day with coffee",
      "The user drinks black coffee in the morning",
      "The user works at Acme",
      "The user lives in Lisbon",
      "The user lives in Lisbon, Portugal",
      "The user's dog is Biscuit"
    };

    @Test
    @DisplayName(
        "merges nine near-duplicate facts into fewer, archives exactly those, each change in"
            + " history, and leaves another owner's memories alone")
    void mergesNearDuplicatesIntoFewer() {
      ScriptedLanguageModel model =
          new ScriptedLanguageModel(
              answer(
                  entry("The user drinks black coffee every morning", 0, 1, 2, 3, 4),
                  entry("The user works at Acme", 5),
                  entry("The user lives in Lisbon, Portugal", 6, 7),
                  entry("The user has a dog named Biscuit", 8)));
      MemoryProvider provider = consolidating(model, Map.of());
      List<String> ids = facts(provider, USER_1, NINE);
      fact(provider, USER_1, "PREFERENCE", "The user prefers tea in the evening");
      List<String> others = new ArrayList<>();
      for (String text : NINE) {
        others.add(fact(provider, USER_2, "FACT", text.replace("coffee", "green tea")));
      }
      Instant before = record(provider, ids.get(8)).updatedAt();
      clock.advance(Duration.ofHours(1));

      JsonNode answer = run(provider, USER_1);

      assertThat(answer.get("status").asString()).isEqualTo("completed");
      assertThat(answer.get("ownersConsolidated").asInt()).isOne();
      assertThat(answer.get("updated").asInt()).isOne();
      assertThat(answer.get("entriesBefore").asInt()).isEqualTo(10);
      assertThat(answer.get("entriesAfter").asInt()).isEqualTo(5);
      assertThat(answer.get("buckets"))
          .extracting(b -> b.get("type").asString() + " " + b.get("status").asString())
          .containsExactly("FACT updated", "PREFERENCE below_minimum");
      assertThat(model.userPrompts()).hasSize(1);
      String prompt = model.userPrompts().get(0);
      assertThat(prompt).contains("Type: FACT").contains("9 memories").contains(NINE[8]);
      assertThat(prompt).doesNotContain("green tea").doesNotContain("prefers tea");

      List<MemoryRecord> facts = active(provider, USER_1, "FACT");
      assertThat(facts)
          .extracting(r -> MemoryRecord.undated(r.text()))
          .containsExactlyInAnyOrder(
              "The user drinks black coffee every morning",
              "The user works at Acme",
              "The user lives in Lisbon, Portugal",
              "The user has a dog named Biscuit");
      MemoryRecord merged =
          facts.stream()
              .filter(r -> r.text().contains("black coffee every"))
              .findFirst()
              .orElseThrow();
      assertThat(ids).doesNotContain(merged.id());
      assertThat(merged.extra())
          .containsEntry("source", "consolidation")
          .containsEntry(Lifecycle.IMPORTANCE, "NORMAL");
      assertThat(merged.createdAt()).isEqualTo(record(provider, ids.get(4)).createdAt());
      assertThat(events(provider, merged.id())).containsOnly("merged").hasSize(5);
      assertThat(store(provider).history().of(merged.id()))
          .extracting(e -> e.details().get("previous"))
          .containsExactlyInAnyOrder(NINE[0], NINE[1], NINE[2], NINE[3], NINE[4]);

      for (int i : new int[] {0, 1, 2, 3, 4, 6}) {
        MemoryRecord archived = record(provider, ids.get(i));
        assertThat(archived.status()).as(NINE[i]).isEqualTo(MemoryStatus.ARCHIVED);
        assertThat(archived.text()).endsWith(NINE[i]);
        assertThat(archived.extra().get("consolidated_into"))
            .isEqualTo(i == 6 ? ids.get(7) : merged.id());
        assertThat(events(provider, ids.get(i))).containsExactly("status");
      }
      assertThat(record(provider, ids.get(5)).status()).isEqualTo(MemoryStatus.ACTIVE);
      assertThat(events(provider, ids.get(5))).isEmpty();
      assertThat(events(provider, ids.get(7))).containsExactly("merged");
      MemoryRecord reworded = record(provider, ids.get(8));
      assertThat(reworded.text()).startsWith("[2026-03-02] ").endsWith("dog named Biscuit");
      assertThat(reworded.updatedAt()).isAfter(before);
      assertThat(store(provider).history().of(ids.get(8)))
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.event()).isEqualTo("updated");
                assertThat(e.details()).containsEntry("previous", NINE[8]);
              });
      JsonNode history =
          tool(provider, USER_1, "memory_history", "{\"id\":\"" + ids.get(0) + "\"}");
      assertThat(history.get("events").get(1).get("status").asString()).isEqualTo("archived");

      assertThat(active(provider, USER_2, "FACT")).hasSize(9);
      for (String id : others) {
        assertThat(events(provider, id)).isEmpty();
      }
    }

    @Test
    @DisplayName(
        "writes nothing for an answer that would grow or keep the entries, bad JSON or a model"
            + " error")
    void writesNothingUnlessItShrinks() {
      String[] ten = new String[10];
      for (int i = 0; i < 10; i++) {
        ten[i] = entry("fact " + i, i % 9);
      }
      String[] nine = new String[9];
      for (int i = 0; i < 9; i++) {
        nine[i] = entry(NINE[i] + " indeed", i);
      }
      ScriptedLanguageModel model =
          new ScriptedLanguageModel(
              answer(ten),
              answer(nine),
              "I merged them for you!",
              answer(entry("The user drinks coffee", 0, 1, 12)),
              ScriptedLanguageModel.STALL);
      MemoryProvider provider = consolidating(model, Map.of("facts-model-timeout", "200ms"));
      List<String> ids = facts(provider, USER_1, NINE);
      Map<String, Instant> read = new HashMap<>();
      ids.forEach(id -> read.put(id, record(provider, id).updatedAt()));

      List<String> statuses = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        JsonNode answer = run(provider, USER_1);
        assertThat(answer.get("updated").asInt()).isZero();
        assertThat(answer.get("entriesAfter").asInt()).isEqualTo(9);
        statuses.add(answer.get("buckets").get(0).get("status").asString());
      }

      assertThat(statuses)
          .containsExactly("grew", "unchanged", "invalid_answer", "invalid_answer", "failed");
      assertThat(model.remaining()).isZero();
      for (int i = 0; i < ids.size(); i++) {
        MemoryRecord record = record(provider, ids.get(i));
        assertThat(record.status()).isEqualTo(MemoryStatus.ACTIVE);
        assertThat(record.text()).endsWith(NINE[i]);
        assertThat(record.updatedAt()).isEqualTo(read.get(ids.get(i)));
        assertThat(events(provider, ids.get(i))).isEmpty();
      }
    }

    @Test
    @DisplayName(
        "without an owner, consolidates the per-run maximum of owners, each on their own, and"
            + " the next run the next ones")
    void goesRoundTheOwnersOnTheirOwn() {
      String[] eight = java.util.Arrays.copyOf(NINE, 8);
      ScriptedLanguageModel model =
          new ScriptedLanguageModel(
              answer(entry(NINE[7], 0, 1, 2, 3, 4, 5, 6, 7)),
              answer(
                  entry("Green tea: The user drinks coffee daily", 0, 1, 2, 3, 4),
                  entry("Green tea: " + NINE[7], 6, 7)));
      MemoryProvider provider =
          consolidating(model, Map.of("structured-consolidation-max-owners-per-run", "1"));
      List<String> first = facts(provider, USER_1, eight);
      List<String> second = new ArrayList<>();
      for (String text : eight) {
        second.add(fact(provider, USER_2, "FACT", "Green tea: " + text));
      }
      ToolCall personalOnly =
          new ToolCall(AGENT, null, RUN, "{}", java.util.EnumSet.of(Scope.PERSONAL));
      assertThatThrownBy(() -> provider.callTool(personalOnly))
          .extracting(e -> ((ToolException) e).kind())
          .isEqualTo(ToolException.Kind.FORBIDDEN);

      JsonNode one = run(provider, null);
      assertThat(one.get("ownersConsolidated").asInt()).isOne();
      assertThat(one.get("buckets").get(0).get("ownerKey").asString()).isEqualTo(USER_1.value());
      assertThat(model.userPrompts().get(0)).contains(NINE[0]).doesNotContain("Green tea");
      assertThat(active(provider, USER_1, "FACT"))
          .singleElement()
          .extracting(MemoryRecord::id)
          .isEqualTo(first.get(7));
      assertThat(active(provider, USER_2, "FACT")).hasSize(8);

      JsonNode two = run(provider, null);
      assertThat(two.get("buckets").get(0).get("ownerKey").asString()).isEqualTo(USER_2.value());
      assertThat(model.userPrompts().get(1))
          .contains("Green tea")
          .doesNotContain("\"text\":\"The user");
      assertThat(active(provider, USER_2, "FACT")).hasSize(2);
      assertThat(record(provider, second.get(7)).status()).isEqualTo(MemoryStatus.ACTIVE);
      MemoryRecord dropped = record(provider, second.get(5));
      assertThat(dropped.status()).isEqualTo(MemoryStatus.ARCHIVED);
      assertThat(dropped.extra()).doesNotContainKey("consolidated_into");
      assertThat(store(provider).history().of(dropped.id()).get(0).details().get("reason"))
          .contains("outdated");
      assertThat(record(provider, second.get(6)).extra())
          .containsEntry("consolidated_into", second.get(7));
      assertThat(active(provider, USER_1, "FACT")).hasSize(1);
    }

    @Test
    @DisplayName("the schedule runs it on the maintenance thread at its cron time")
    void theScheduleRunsIt() throws InterruptedException {
      ScriptedLanguageModel model =
          new ScriptedLanguageModel(answer(entry(NINE[7], 0, 1, 2, 3, 4, 5, 6, 7, 8)));
      MemoryProvider provider =
          consolidating(model, Map.of("structured-consolidation-cron", "* * * * * *"));
      List<String> ids = facts(provider, USER_1, NINE);

      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (active(provider, USER_1, "FACT").size() > 1 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }

      assertThat(model.userPrompts()).hasSize(1);
      assertThat(active(provider, USER_1, "FACT"))
          .singleElement()
          .extracting(MemoryRecord::id)
          .isEqualTo(ids.get(7));
    }

    @Test
    @DisplayName(
        "without a chat model the tool answers a conflict naming memstack.models.chat, and"
            + " LIFECYCLE is not claimed")
    void needsAChatModel() {
      MemoryProvider provider = provider();
      facts(provider, USER_1, NINE);
      assertThat(provider.capabilities()).doesNotContain(Capability.LIFECYCLE);
      assertThat(provider.tools())
          .filteredOn(t -> t.name().equals(RUN))
          .singleElement()
          .extracting(ToolSpec::effect)
          .isEqualTo(ToolSpec.Effect.WRITE);
      assertThatThrownBy(() -> run(provider, USER_1))
          .isInstanceOfSatisfying(
              ToolException.class,
              e -> {
                assertThat(e.kind()).isEqualTo(ToolException.Kind.CONFLICT);
                assertThat(e.getMessage()).contains("memstack.models.chat");
              });
      assertThat(active(provider, USER_1, "FACT")).hasSize(9);
      assertThatThrownBy(
              () -> provider(Map.of("structured-consolidation-cron", "0 30 3 * *"), embedder))
          .isInstanceOf(ProviderConfigException.class)
          .hasMessageContaining("structured-consolidation-cron");
    }

    @Test
    @DisplayName(
        "of two hosts on one shared coordination, one runs each scheduled time, and a run on one"
            + " makes a manual run on the other skip")
    void runsOncePerScheduledTimeAcrossHosts() {
      RecordingCoordination shared = RecordingCoordination.shared(clock);
      ScriptedLanguageModel first =
          new ScriptedLanguageModel(answer(entry(NINE[7], 0, 1, 2, 3, 4, 5, 6, 7, 8)));
      ScriptedLanguageModel second = new ScriptedLanguageModel(answer(entry(NINE[7], 0, 1)));
      MemoryProvider a = provider(Map.of(), first, shared, dataDir.resolve("a"));
      MemoryProvider b = provider(Map.of(), second, shared, dataDir.resolve("b"));
      for (int i = 0; i < NINE.length; i++) {
        clock.advance(Duration.ofMinutes(1));
        fact(a, USER_1, "FACT", NINE[i]);
        fact(b, USER_1, "FACT", NINE[i]);
      }
      var onA = ((VectorMemoryProvider) a).parts().consolidation();
      var onB = ((VectorMemoryProvider) b).parts().consolidation();
      Instant night = onA.nextRun(clock.instant());
      assertThat(night).isEqualTo(Instant.parse("2026-03-03T03:30:00Z"));
      assertThat(onB.nextRun(clock.instant())).isEqualTo(night);

      clock.set(night.plusMillis(150));
      int ran = onA.runScheduled(night);
      clock.set(night.plusSeconds(2)); // the other host's timer, a little later
      ran += onB.runScheduled(night);

      assertThat(ran).isOne();
      assertThat(first.userPrompts()).hasSize(1);
      assertThat(second.userPrompts()).isEmpty();
      assertThat(shared.claims())
          .containsExactly(
              "structured-consolidation@2026-03-03T03:30:00Z",
              "structured-consolidation@2026-03-03T03:30:00Z (taken)");
      assertThat(active(a, USER_1, "FACT")).hasSize(1);

      Instant next = onB.nextRun(night);
      assertThat(next).isEqualTo(Instant.parse("2026-03-04T03:30:00Z"));
      clock.set(next.plusMillis(40));
      assertThat(onB.runScheduled(next) + onA.runScheduled(next)).as("next night").isOne();
      assertThat(shared.held()).isEmpty();

      var otherHost =
          shared
              .tryLock("structured-consolidation:" + AGENT.value(), Duration.ofMinutes(5))
              .orElseThrow();
      assertThat(run(a, USER_1).get("status").asString()).isEqualTo("skipped");
      otherHost.close();
      assertThat(run(a, USER_1).get("status").asString()).isEqualTo("completed");
    }
  }

  @Nested
  @DisplayName("Erasing an owner")
  class Erasure {

    private JsonNode call(MemoryProvider provider, OwnerKey owner, String name, String args) {
      return JSON.readTree(
          provider.callTool(
              new ToolCall(
                  AGENT, owner, name, args, java.util.EnumSet.allOf(Scope.class), "console")));
    }

    private String remembered(MemoryProvider provider, OwnerKey owner, String args) {
      return call(provider, owner, "remember", args).get("id").asString();
    }

    /** An owner's memory of every kind: returns {locker, pending, edited, team}. */
    private String[] everything(
        MemoryProvider provider, OwnerKey owner, String code, String teamText) {
      String locker = remembered(provider, owner, "{\"text\":\"My locker code is " + code + "1\"}");
      String pending =
          remembered(provider, owner, "{\"text\":\"My locker code is " + code + "2\"}");
      String edited = remembered(provider, owner, "{\"text\":\"My bike is red\"}");
      String read =
          call(provider, owner, "get_memory", "{\"id\":\"" + edited + "\"}")
              .get("updatedAt")
              .asString();
      clock.advance(Duration.ofMinutes(1));
      call(
          provider,
          owner,
          "edit_memory",
          "{\"id\":\""
              + edited
              + "\",\"text\":\"My bike is green, frame "
              + code
              + "3\",\"updatedAt\":\""
              + read
              + "\"}");
      String team =
          remembered(provider, owner, "{\"scope\":\"team\",\"text\":\"" + teamText + "\"}");
      assertThat(provider.feedback(AGENT, owner, List.of(team, locker))).isEqualTo(2);
      assertThat(provider.wrong(AGENT, owner, List.of(team, edited))).isEqualTo(2);
      return new String[] {locker, pending, edited, team};
    }

    @Test
    @DisplayName(
        "removes their inbox rows, trust and feedback rows and histories, and another owner's"
            + " stay")
    void removesTheOwnersRowsOnly() {
      MemoryProvider provider = provider(Map.of("contradiction-check-enabled", "true"), embedder);
      MemoryVectorStore store = ((VectorMemoryProvider) provider).parts().store();
      String[] gone = everything(provider, USER_1, "730", "Team lunch is on Friday at noon");
      String[] kept =
          everything(provider, USER_2, "840", "The office plants need water on Mondays");
      assertThat(call(provider, USER_1, "list_contradictions", "{}").get("total").asInt()).isOne();
      assertThat(store.history().of(gone[1])).isNotEmpty();
      assertThat(store.history().of(gone[2])).extracting(e -> e.event()).contains("updated");
      assertThat(store.trust(USER_1, List.of(gone[3], gone[0], gone[2]))).hasSize(3);
      if ("embedded".equals(storeConfig.get("store"))) {
        assertThat(filesHolding("7303")).as("the history file holds the edit").isNotEmpty();
      }

      provider.forget(USER_1);

      assertThat(call(provider, USER_1, "list_contradictions", "{}").get("total").asInt()).isZero();
      assertThat(store.trust(USER_1, List.of(gone[0], gone[2], gone[3]))).isEmpty();
      assertThat(store.feedback(USER_1, List.of(gone[0], gone[3]))).isEmpty();
      for (String id : List.of(gone[0], gone[1], gone[2])) {
        assertThat(store.history().of(id)).as("history of %s", id).isEmpty();
        assertThat(store.get(id)).isEmpty();
      }
      assertThat(store.get(gone[3])).as("the team's memory stays").isPresent();

      assertThat(call(provider, USER_2, "list_contradictions", "{}").get("total").asInt()).isOne();
      assertThat(store.trust(USER_2, List.of(kept[0], kept[2], kept[3]))).hasSize(3);
      assertThat(store.feedback(USER_2, List.of(kept[0], kept[3]))).hasSize(2);
      assertThat(store.history().of(kept[1])).isNotEmpty();
      assertThat(store.history().of(kept[2])).extracting(e -> e.event()).contains("updated");
      provider.close();
      for (String secret : List.of("7301", "7302", "7303")) {
        assertThat(filesHolding(secret)).as(secret).isEmpty();
      }
    }
  }

  /** The files of the embedded store holding {@code secret}; none on other stores. */
  protected List<Path> filesHolding(String secret) {
    if (!"embedded".equals(storeConfig.get("store"))) {
      return List.of();
    }
    try (var files = java.nio.file.Files.walk(dataDir)) {
      return files
          .filter(java.nio.file.Files::isRegularFile)
          .filter(
              f -> {
                try {
                  return new String(
                          java.nio.file.Files.readAllBytes(f),
                          java.nio.charset.StandardCharsets.ISO_8859_1)
                      .contains(secret);
                } catch (java.io.IOException e) {
                  return false;
                }
              })
          .toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Counts the passages embedded through it. */
  protected static final class CountingEmbedder implements Embedder {
    final Embedder delegate;
    final AtomicLong passages = new AtomicLong();

    CountingEmbedder(Embedder delegate) {
      this.delegate = delegate;
    }

    @Override
    public String modelId() {
      return delegate.modelId();
    }

    @Override
    public int dimension() {
      return delegate.dimension();
    }

    @Override
    public List<float[]> embed(List<String> texts, Kind kind) {
      if (kind == Kind.PASSAGE) {
        passages.addAndGet(texts.size());
      }
      return delegate.embed(texts, kind);
    }
  }

  /** The same vectors under another model id. */
  protected static final class RenamedEmbedder implements Embedder {
    private final Embedder delegate;
    private final String modelId;

    RenamedEmbedder(Embedder delegate, String modelId) {
      this.delegate = delegate;
      this.modelId = modelId;
    }

    @Override
    public String modelId() {
      return modelId;
    }

    @Override
    public int dimension() {
      return delegate.dimension();
    }

    @Override
    public List<float[]> embed(List<String> texts, Kind kind) {
      return delegate.embed(texts, kind);
    }
  }
}
