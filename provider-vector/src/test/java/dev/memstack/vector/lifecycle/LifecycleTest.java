package dev.memstack.vector.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.tck.HashingEmbedder;
import dev.memstack.tck.MutableClock;
import dev.memstack.vector.lucene.LuceneMemoryVectorStore;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.document.Document;

@DisplayName("The memory lifecycle")
class LifecycleTest {

  static final AgentId AGENT = AgentId.of("helper");
  static final OwnerKey ALICE = OwnerKey.of("user:alice");
  static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

  @TempDir Path dir;
  MemoryVectorStore store;
  StoreEmbedder embedder;
  MutableClock clock;

  @BeforeEach
  void open() {
    embedder = new StoreEmbedder(new HashingEmbedder(), 8);
    store = LuceneMemoryVectorStore.open(dir, embedder, false, "reembed");
    clock = MutableClock.at(T0);
  }

  @AfterEach
  void close() {
    store.close();
  }

  void add(String id, String text, Importance importance) {
    Map<String, Object> extra =
        importance == null
            ? Map.of()
            : new LinkedHashMap<>(Lifecycle.initial(importance, clock.instant()));
    store.add(
        List.of(
            new MemoryRecord(
                    id,
                    text,
                    AGENT,
                    ALICE,
                    Scope.PERSONAL,
                    MemoryStatus.ACTIVE,
                    importance == null ? "RAW" : "FACT",
                    null,
                    null,
                    clock.instant(),
                    extra)
                .toDocument()));
  }

  Map<String, Object> meta(String id) {
    return store.get(id).orElseThrow().getMetadata();
  }

  @Test
  @DisplayName("starts records at the seed weights: 0.95, 0.80, 0.70 and 0.50")
  void initialWeights() {
    assertThat(Importance.CRITICAL.initialWeight()).isEqualTo(0.95);
    assertThat(Importance.HIGH.initialWeight()).isEqualTo(0.80);
    assertThat(Importance.NORMAL.initialWeight()).isEqualTo(0.70);
    assertThat(Importance.TEMPORAL.initialWeight()).isEqualTo(0.50);
    assertThat(Importance.CRITICAL.dailyRetention())
        .isGreaterThan(Importance.HIGH.dailyRetention());
    assertThat(Importance.HIGH.dailyRetention()).isGreaterThan(Importance.NORMAL.dailyRetention());
    assertThat(Importance.NORMAL.dailyRetention())
        .isGreaterThan(Importance.TEMPORAL.dailyRetention());
  }

  @Test
  @DisplayName("decays once per full day, archives under 0.2 and leaves raw turns alone")
  void decaysAndArchives() {
    add("normal", "the user likes tea", Importance.NORMAL);
    add("temporal", "merges freeze on friday", Importance.TEMPORAL);
    add("raw", "user: hello there", null);
    DecayJob job = new DecayJob(store, clock);

    clock.advance(Duration.ofHours(23));
    assertThat(job.run().decayed()).isZero();

    clock.advance(Duration.ofHours(1));
    assertThat(job.run().decayed()).isEqualTo(2);
    assertThat(Lifecycle.weight(meta("normal"))).isCloseTo(0.70 * 0.98, within(1e-6));
    assertThat(Lifecycle.weight(meta("temporal"))).isCloseTo(0.50 * 0.93, within(1e-6));
    assertThat(job.run().decayed()).isZero(); // the same day again: nothing more

    clock.advance(Duration.ofDays(12)); // a missed run catches up: 13 days in all
    DecayJob.Report report = job.run();
    assertThat(report.archived()).isOne();
    assertThat(meta("temporal"))
        .containsEntry(MemoryVectorStore.STATUS, "ARCHIVED")
        .containsEntry(Lifecycle.ARCHIVED_BY, "decay");
    assertThat(Lifecycle.weight(meta("temporal"))).isLessThan(Lifecycle.ARCHIVE_BELOW);
    assertThat(Lifecycle.weight(meta("normal"))).isCloseTo(0.70 * Math.pow(0.98, 13), within(1e-5));
    assertThat(meta("normal")).containsEntry(MemoryVectorStore.STATUS, "ACTIVE");
    assertThat(meta("raw")).doesNotContainKey(Lifecycle.WEIGHT);
    // archived, not erased, and out of an ACTIVE search
    assertThat(store.count(MemoryFilters.ofOwner(ALICE))).isEqualTo(3);
    assertThat(
            store.vectorSearch(
                embedder.embedQuery("merges freeze on friday"),
                MemoryFilters.eq(MemoryVectorStore.STATUS, "ACTIVE"),
                5,
                0.5))
        .extracting(Document::getId)
        .doesNotContain("temporal");
  }

  @Test
  @DisplayName("decays by time alone: a legacy last_recalled key postpones nothing")
  void decaysByTimeAlone() {
    add("fact", "the user likes tea", Importance.NORMAL);
    clock.advance(Duration.ofDays(3).minusHours(1));
    // written by earlier versions whenever prefetch returned the record
    store.updateMetadata("fact", Map.of("last_recalled", clock.millis(), "reinforcements", 7L));
    clock.advance(Duration.ofHours(2));

    assertThat(new DecayJob(store, clock).run().decayed()).isOne();
    assertThat(Lifecycle.weight(meta("fact"))).isCloseTo(0.70 * Math.pow(0.98, 3), within(1e-6));
  }

  @Test
  @DisplayName("ranks by weight alone: a legacy reinforcement count adds nothing")
  void ranksByWeightAlone() {
    add("a", "the user likes tea", Importance.NORMAL);
    add("b", "the user likes tea", Importance.NORMAL);
    store.updateMetadata("b", Map.of("reinforcements", 20L));

    assertThat(Lifecycle.rankFactor(meta("b"))).isEqualTo(Lifecycle.rankFactor(meta("a")));
    assertThat(Lifecycle.rankFactor(meta("a"))).isCloseTo(0.70, within(1e-9));
    assertThat(Lifecycle.rankFactor(Map.of())).isEqualTo(1.0);
    assertThat(Lifecycle.initial(Importance.HIGH, T0)).doesNotContainKey("reinforcements");
  }

  @Test
  @DisplayName("reports records of one owner that overlap strongly as merge candidates")
  void findsMergeCandidates() {
    add("m1", "[2026-03-02] mock strategy: never mock the database in tests", Importance.HIGH);
    add("m2", "[2026-03-03] mock strategy: never mock the database in tests!", Importance.HIGH);
    add("other", "[2026-03-02] the user drinks green tea every morning", Importance.NORMAL);

    List<MergeCandidates.Pair> pairs =
        new MergeCandidates(store, embedder).find(MemoryFilters.ofOwner(ALICE), 0.9, 100, 10);

    assertThat(pairs)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(List.of(p.first().getId(), p.second().getId()))
                  .containsExactlyInAnyOrder("m1", "m2");
              assertThat(p.similarity()).isGreaterThanOrEqualTo(0.9);
            });
  }

  @Test
  @DisplayName("schedules the next decay run at decay-at in UTC")
  void schedulesAtDecayAt() {
    assertThat(
            DecayScheduler.delayUntilNext(
                Instant.parse("2026-03-02T01:00:00Z"), LocalTime.of(2, 0)))
        .isEqualTo(Duration.ofHours(1));
    assertThat(
            DecayScheduler.delayUntilNext(
                Instant.parse("2026-03-02T02:00:00Z"), LocalTime.of(2, 0)))
        .isEqualTo(Duration.ofDays(1));
    assertThat(
            DecayScheduler.delayUntilNext(
                Instant.parse("2026-03-02T03:30:00Z"), LocalTime.of(2, 0)))
        .isEqualTo(Duration.ofHours(22).plusMinutes(30));
  }
}
