package dev.memstack.vector.facts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.Coordination;
import dev.memstack.spi.Turn;
import dev.memstack.support.CoordinatedWork;
import dev.memstack.tck.HashingEmbedder;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.RecordingCoordination;
import dev.memstack.vector.lucene.LuceneMemoryVectorStore;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Fact consolidation across hosts")
class FactConsolidatorCoordinationTest {

  @TempDir Path dir;
  private MemoryVectorStore store;
  private StoreEmbedder embedder;
  private final MutableClock clock = MutableClock.at(FactConsolidatorTest.T0);

  @BeforeEach
  void open() {
    embedder = new StoreEmbedder(new HashingEmbedder(), 8);
    store = LuceneMemoryVectorStore.open(dir, embedder, false, "reembed");
  }

  @AfterEach
  void close() {
    store.close();
  }

  private FactConsolidator consolidator(ScriptedLanguageModel model, Coordination coordination) {
    return new FactConsolidator(
        store,
        embedder,
        model,
        new FactSettings(true, Duration.ofSeconds(2), 10),
        clock,
        Runnable::run,
        coordination);
  }

  private long aliceFacts() {
    return store.count(MemoryFilters.ofOwner(FactConsolidatorTest.ALICE));
  }

  @Test
  @DisplayName("waits while another host consolidates the same owner, then writes")
  void waitsForTheOwnersLock() throws Exception {
    RecordingCoordination shared = RecordingCoordination.shared(clock);
    Turn turn = FactConsolidatorTest.turn(FactConsolidatorTest.ALICE, "I moved to Lisbon in May");
    Coordination.Lease otherHost =
        shared.tryLock(FactConsolidator.lockName(turn), Duration.ofMinutes(1)).orElseThrow();
    ScriptedLanguageModel model =
        new ScriptedLanguageModel(FactConsolidatorTest.facts("FACT", "The user lives in Lisbon"));

    CompletableFuture<FactConsolidator.Report> running =
        CompletableFuture.supplyAsync(() -> consolidator(model, shared).process(turn));
    Thread.sleep(600);
    assertThat(model.userPrompts()).as("extraction does not wait").hasSize(1);
    assertThat(aliceFacts()).as("nothing written while the other host holds the lock").isZero();
    assertThat(running).isNotDone();

    otherHost.close();
    FactConsolidator.Report report = running.get(10, TimeUnit.SECONDS);
    assertThat(report.added()).isEqualTo(1);
    assertThat(aliceFacts()).isEqualTo(1);
    assertThat(shared.locksTaken())
        .containsExactly(
            CoordinatedWork.ownerWork("facts", "helper", "user:alice"),
            CoordinatedWork.ownerWork("facts", "helper", "user:alice"))
        .allSatisfy(name -> assertThat(name).startsWith("facts:helper|").doesNotContain("alice"));
    assertThat(shared.held()).isEmpty();
  }

  @Test
  @DisplayName("consolidates without the lock when the coordination is unreachable")
  void consolidatesWithoutTheLockWhenUnreachable() {
    ScriptedLanguageModel model =
        new ScriptedLanguageModel(FactConsolidatorTest.facts("FACT", "The user lives in Porto"));
    FactConsolidator.Report report =
        consolidator(model, RecordingCoordination.shared(clock).refuseAll(true))
            .process(FactConsolidatorTest.turn(FactConsolidatorTest.ALICE, "I live in Porto now"));
    assertThat(report.added()).isEqualTo(1);
  }

  @Test
  @DisplayName("on one host no lock is taken")
  void onOneHostNoLockIsTaken() {
    RecordingCoordination local = RecordingCoordination.inProcess(clock);
    ScriptedLanguageModel model =
        new ScriptedLanguageModel(FactConsolidatorTest.facts("FACT", "The user lives in Faro"));
    consolidator(model, local)
        .process(FactConsolidatorTest.turn(FactConsolidatorTest.ALICE, "I live in Faro now"));
    assertThat(local.locksTaken()).isEmpty();
    assertThat(aliceFacts()).isEqualTo(1);
  }
}
