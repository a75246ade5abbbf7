package dev.memstack.builtin.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recall with the keyword index's dense view: paragraphs found by meaning, fused with keywords. */
class DenseRecallTest {

  private static final Instant START = Instant.parse("2026-04-01T09:30:00Z");
  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey OWNER = OwnerKey.of("user:1");

  @TempDir Path dir;

  /**
   * Knows a few concepts, each one dimension: a text's vector counts the words of each concept it
   * holds, so "dog" and "puppy" are the same to it while sharing no letter. Counts what it embeds.
   */
  static final class ConceptEmbedder implements Embedder {
    private static final List<List<String>> CONCEPTS =
        List.of(
            List.of("dog", "puppy", "hound"),
            List.of("rain", "drizzle", "weather"),
            List.of("guitar", "music", "song"));
    final List<String> passages = new ArrayList<>();

    @Override
    public String modelId() {
      return "concepts-4";
    }

    @Override
    public int dimension() {
      return CONCEPTS.size() + 1;
    }

    @Override
    public synchronized List<float[]> embed(List<String> texts, Kind kind) {
      if (kind == Kind.PASSAGE) {
        passages.addAll(texts);
      }
      List<float[]> vectors = new ArrayList<>();
      for (String text : texts) {
        float[] vector = new float[dimension()];
        for (String word : text.toLowerCase(Locale.ROOT).split("\\W+")) {
          for (int c = 0; c < CONCEPTS.size(); c++) {
            if (CONCEPTS.get(c).contains(word)) {
              vector[c]++;
            }
          }
        }
        vector[CONCEPTS.size()] = 0.01f; // never the zero vector
        vectors.add(vector);
      }
      return vectors;
    }
  }

  private final ConceptEmbedder embedder = new ConceptEmbedder();

  private WorkspaceMemory open(DenseSettings dense) {
    return WorkspaceMemory.open(
        BuiltinSettings.defaults(),
        dev.memstack.builtin.store.StoreSettings.files(),
        dense,
        embedder,
        dir,
        Clock.fixed(START, ZoneOffset.UTC),
        "builtin",
        agent -> {});
  }

  private static Turn turn(String id, String user, int minutes) {
    return new Turn(
        id, AGENT, OWNER, "c1", user, "", TriggerSource.WEB, START.plusSeconds(60L * minutes));
  }

  private static List<RecallItem> recall(WorkspaceMemory memory, String query) {
    return memory
        .prefetch(new RecallRequest(AGENT, OWNER, "c1", query, 10, Instant.now().plusSeconds(10)))
        .items();
  }

  @Test
  @DisplayName("finds a paragraph by meaning that shares no word with the query, with its signals")
  void findsByMeaning() {
    try (WorkspaceMemory memory = open(DenseSettings.defaults())) {
      memory.syncTurns(
          List.of(
              turn("t1", "we adopted a puppy last week", 0),
              turn("t2", "drizzle never stops here", 1)));

      List<RecallItem> items = recall(memory, "tell me about the dog");

      assertThat(items).isNotEmpty();
      RecallItem first = items.get(0);
      assertThat(first.text()).contains("we adopted a puppy");
      assertThat(first.metadata()).containsEntry("denseRank", "1").containsKey("denseScore");
      assertThat(first.metadata())
          .doesNotContainKey("keywordRank")
          .doesNotContainKey("keywordScore");
      assertThat(first.metadata().get("fused")).isNotBlank();
      assertThat(first.score()).isBetween(0.0, 1.0);
      // the rain entry shares no word with the query and is orthogonal to it: left out
      assertThat(items).noneMatch(i -> i.text().contains("drizzle"));
    }
  }

  @Test
  @DisplayName(
      "every hybrid item carries its paragraph's vector of the dense view, keyword-only too")
  void itemsCarryTheirVectors() {
    try (WorkspaceMemory memory = open(DenseSettings.defaults())) {
      memory.syncTurns(
          List.of(
              turn("t1", "we adopted a puppy last week", 0), turn("t2", "the week was long", 1)));

      RecallRequest asking =
          new RecallRequest(
              AGENT, OWNER, "c1", "the puppy this week", 10, Instant.now().plusSeconds(10));
      assertThat(memory.prefetch(asking).items())
          .as("no vector is read unless the host asks")
          .allMatch(i -> i.vector() == null);
      List<RecallItem> items = memory.prefetch(asking.withVectors(true)).items();

      RecallItem puppy =
          items.stream().filter(i -> i.text().contains("puppy")).findFirst().orElseThrow();
      RecallItem week =
          items.stream().filter(i -> i.text().contains("was long")).findFirst().orElseThrow();
      assertThat(week.metadata()).doesNotContainKey("denseRank"); // found by its words alone
      for (RecallItem item : List.of(puppy, week)) {
        assertThat(item.vector()).as(item.text()).isNotNull();
        assertThat(item.vector().model()).isEqualTo("concepts-4");
      }
      // the dense view embeds the entry as "User: <message>": the puppy concept is in its vector
      assertThat(puppy.vector().values()[0]).isEqualTo(1f);
      assertThat(week.vector().values()[0]).isZero();
    }
  }

  @Test
  @DisplayName("a paragraph found by both searches shows both ranks and comes first")
  void bothSignals() {
    try (WorkspaceMemory memory = open(DenseSettings.defaults())) {
      memory.syncTurns(
          List.of(
              turn("t1", "my hound Rex loves the beach", 0),
              turn("t2", "Rex is also the name of my guitar teacher", 1)));

      List<RecallItem> items = recall(memory, "how is the dog Rex");

      assertThat(items.get(0).text()).contains("hound Rex");
      assertThat(items.get(0).metadata())
          .containsEntry("denseRank", "1")
          .containsKey("keywordRank")
          .containsKey("keywordScore");
    }
  }

  @Test
  @DisplayName("appending an entry to a daily note embeds that entry only")
  void embedsOnlyNewEntries() {
    try (WorkspaceMemory memory = open(DenseSettings.defaults())) {
      memory.syncTurns(List.of(turn("t1", "first puppy story", 0)));
      memory.syncTurns(List.of(turn("t2", "second song story", 1)));
      memory.syncTurns(List.of(turn("t3", "third drizzle story", 2)));

      assertThat(embedder.passages)
          .filteredOn(p -> p.contains("story"))
          .containsExactly(
              "User: first puppy story", "User: second song story", "User: third drizzle story");
    }
  }

  @Test
  @DisplayName("turning the view off rebuilds the index without vectors; on again embeds anew")
  void switchingTheViewRebuilds() {
    try (WorkspaceMemory memory = open(DenseSettings.defaults())) {
      memory.syncTurns(List.of(turn("t1", "we adopted a puppy", 0)));
    }
    embedder.passages.clear();
    try (WorkspaceMemory memory = open(DenseSettings.off())) {
      assertThat(embedder.passages).isEmpty();
      assertThat(recall(memory, "the dog")).isEmpty();
      List<RecallItem> keyword = recall(memory, "puppy");
      assertThat(keyword).hasSize(1);
      assertThat(keyword.get(0).metadata()).doesNotContainKey("denseRank");
    }
    try (WorkspaceMemory memory = open(DenseSettings.defaults())) {
      assertThat(embedder.passages).contains("User: we adopted a puppy");
      assertThat(recall(memory, "the dog")).hasSize(1);
    }
  }
}
