package dev.memstack.vector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.Scope;
import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.lucene.LuceneMemoryVectorStore;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import dev.memstack.vector.store.SyntheticEmbedder;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

@DisplayName("Ranking on the embedded store's doc values")
class RecallRankerPathsTest {

  private static final AgentId AGENT = AgentId.of("agent-a");
  private static final Instant T0 = Instant.parse("2026-03-01T00:00:00Z");
  private static final String[] WORDS = {
    "coffee", "paris", "dog", "marathon", "sister", "guitar", "job", "interview", "pizza", "rain",
    "movie", "book", "garden", "trip", "tokyo", "birthday", "cat", "piano", "exam", "soup",
    "weekend", "train", "beach", "novel", "painting", "hike", "meeting", "doctor", "camera", "tea"
  };

  @TempDir Path dir;

  @Test
  @DisplayName("gives the same items, order, scores and signals as ranking on whole documents")
  void sameRankingAsOnWholeDocuments() {
    StoreEmbedder embedder = new StoreEmbedder(new SyntheticEmbedder("synthetic", 16), 64);
    VectorSettings settings =
        VectorSettings.from(
            ProviderConfig.of("memstack.providers.vector.config", Map.of("threshold", "-0.2")));
    try (MemoryVectorStore store = LuceneMemoryVectorStore.open(dir, embedder, false, "-")) {
      List<String> ids = fill(store, new Random(11));
      MemoryVectorStore wholeDocuments = wholeDocuments(store);
      RecallRanker fast = new RecallRanker(store, settings, true);
      RecallRanker reference = new RecallRanker(wholeDocuments, settings, true);
      Random random = new Random(12);
      for (int i = 0; i < 40; i++) {
        store.addFeedback(owner(i % 3), List.of(ids.get(random.nextInt(ids.size()))));
      }
      Instant now = T0.plus(Duration.ofDays(20));
      int compared = 0;
      for (int q = 0; q < 60; q++) {
        String query = WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(30)];
        OwnerKey owner = q % 4 == 0 ? null : owner(q % 3);
        Filter.Expression filter = filter(owner(q % 3));
        float[] vector = embedder.embedQuery(query);
        assertThat(store.vectorHits(vector, filter, 10, -1))
            .as("hits read from doc values, not whole documents")
            .isNotEmpty()
            .allSatisfy(hit -> assertThat(hit.document()).isNull());
        int limit = 1 + random.nextInt(50);
        List<RecallRanker.Ranked> expected =
            reference.rank(vector, query, filter, owner, limit, now);
        List<RecallRanker.Ranked> actual = fast.rank(vector, query, filter, owner, limit, now);
        assertThat(view(actual)).as("query %s", query).isEqualTo(view(expected));
        compared += expected.size();
      }
      assertThat(compared).isGreaterThan(600);
    }
  }

  @Test
  @DisplayName("names every key ranking reads among the keys a hit must carry")
  void rankingKeysCoverWhatRankingReads() {
    assertThat(MemoryVectorStore.RANKING_KEYS)
        .contains(
            MemoryVectorStore.TURN,
            MemoryVectorStore.CREATED_AT,
            MemoryRecord.PREVIOUS_TURN,
            Lifecycle.IMPORTANCE,
            Lifecycle.WEIGHT);
  }

  /** Id, score, signals and the whole document of each item, in order. */
  private static List<List<Object>> view(List<RecallRanker.Ranked> ranked) {
    List<List<Object>> out = new ArrayList<>();
    for (RecallRanker.Ranked r : ranked) {
      Document d = r.document();
      out.add(List.of(d.getId(), r.score(), r.signals(), d.getText(), d.getMetadata()));
    }
    return out;
  }

  private static List<String> fill(MemoryVectorStore store, Random random) {
    List<Document> documents = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int o = 0; o < 3; o++) {
      String previous = null;
      for (int i = 0; i < 300; i++) {
        String id = "o" + o + "-" + i;
        String turn = "o" + o + "-t" + (i / 2);
        Map<String, Object> extra = new HashMap<>();
        extra.put("role", i % 2 == 0 ? "user" : "assistant");
        if (previous != null && i % 2 == 0) {
          extra.put(MemoryRecord.PREVIOUS_TURN, previous);
        }
        if (i % 5 == 0) {
          extra.put(Lifecycle.IMPORTANCE, (long) random.nextInt(10));
          extra.put(Lifecycle.WEIGHT, random.nextDouble());
        }
        MemoryRecord record =
            new MemoryRecord(
                id,
                sentence(random),
                AGENT,
                owner(o),
                Scope.PERSONAL,
                i % 17 == 0 ? MemoryStatus.ARCHIVED : MemoryStatus.ACTIVE,
                "RAW",
                "c" + o,
                turn,
                T0.plus(Duration.ofMinutes(37L * i)),
                extra);
        documents.add(record.toDocument());
        ids.add(id);
        previous = turn;
      }
    }
    store.add(documents);
    return ids;
  }

  private static String sentence(Random random) {
    StringBuilder text = new StringBuilder("I");
    int words = 4 + random.nextInt(12);
    for (int w = 0; w < words; w++) {
      text.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
    }
    return text.append('.').toString();
  }

  private static OwnerKey owner(int o) {
    return OwnerKey.of("user:" + o);
  }

  private static Filter.Expression filter(OwnerKey owner) {
    return MemoryFilters.and(
        MemoryFilters.visibleTo(AGENT, owner),
        MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name()));
  }

  /** The store as one without its own hits: every hit a whole document (the interface defaults). */
  private static MemoryVectorStore wholeDocuments(MemoryVectorStore store) {
    Set<String> defaults = Set.of("vectorHits", "keywordHits", "documents");
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (defaults.contains(method.getName())) {
            return InvocationHandler.invokeDefault(proxy, method, args);
          }
          try {
            return method.invoke(store, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return (MemoryVectorStore)
        Proxy.newProxyInstance(
            MemoryVectorStore.class.getClassLoader(),
            new Class<?>[] {MemoryVectorStore.class},
            handler);
  }
}
