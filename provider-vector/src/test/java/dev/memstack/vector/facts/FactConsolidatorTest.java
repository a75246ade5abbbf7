package dev.memstack.vector.facts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import dev.memstack.tck.HashingEmbedder;
import dev.memstack.tck.HeldLanguageModel;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.Turns;
import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.lucene.LuceneMemoryVectorStore;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.document.Document;

@DisplayName("Fact extraction and consolidation")
class FactConsolidatorTest {

  static final AgentId AGENT = AgentId.of("helper");
  static final OwnerKey ALICE = OwnerKey.of("user:alice");
  static final OwnerKey BOB = OwnerKey.of("user:bob");
  static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

  @TempDir Path dir;
  MemoryVectorStore store;
  StoreEmbedder embedder;
  MutableClock clock;
  ExecutorService executor;

  @BeforeEach
  void open() {
    embedder = new StoreEmbedder(new HashingEmbedder(), 8);
    store = LuceneMemoryVectorStore.open(dir, embedder, false, "reembed");
    clock = MutableClock.at(T0);
    executor = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void close() throws InterruptedException {
    executor.shutdownNow();
    executor.awaitTermination(5, TimeUnit.SECONDS);
    store.close();
  }

  FactConsolidator consolidator(LanguageModel model) {
    return new FactConsolidator(
        store,
        embedder,
        model,
        new FactSettings(true, Duration.ofMillis(300), 10),
        clock,
        executor,
        Coordination.local(clock));
  }

  static Turn turn(OwnerKey owner, String user) {
    return Turns.turn(AGENT, owner, user, "Noted.");
  }

  static String facts(String type, String text) {
    return "{\"facts\":[{\"type\":\""
        + type
        + "\",\"text\":\""
        + text
        + "\",\"importance\":\"HIGH\"}]}";
  }

  List<Document> factsOf(OwnerKey owner) {
    return store.list(MemoryFilters.ofOwner(owner), 0, 100);
  }

  Document only(OwnerKey owner) {
    List<Document> docs = factsOf(owner);
    assertThat(docs).hasSize(1);
    return docs.get(0);
  }

  @Test
  @DisplayName("adds a fact from a fenced JSON answer, with its type, importance and weight")
  void addsAFactFromFencedJson() {
    var model =
        new ScriptedLanguageModel(
            "```json\n" + facts("PREFERENCE", "The user prefers Kotlin over Java") + "\n```");

    var report = consolidator(model).process(turn(ALICE, "I really prefer Kotlin to Java"));

    assertThat(report.added()).isEqualTo(1);
    Document fact = only(ALICE);
    assertThat(fact.getText()).endsWith("The user prefers Kotlin over Java");
    assertThat(fact.getMetadata())
        .containsEntry(MemoryVectorStore.TYPE, "PREFERENCE")
        .containsEntry(MemoryVectorStore.STATUS, "ACTIVE")
        .containsEntry(Lifecycle.IMPORTANCE, "HIGH");
    assertThat(Lifecycle.weight(fact.getMetadata())).isEqualTo(0.80);
    assertThat(model.userPrompts()).hasSize(1); // no neighbour, so no decision to ask for
    assertThat(factsOf(BOB)).isEmpty();
  }

  @Test
  @DisplayName("finds the JSON when the model wraps it in prose")
  void findsJsonInProse() {
    var model =
        new ScriptedLanguageModel(
            "Sure! Here is what I found: "
                + facts("DECISION", "The user decided to use PostgreSQL")
                + " Let me know if you need more.");

    consolidator(model).process(turn(ALICE, "We decided on PostgreSQL for the service"));

    assertThat(only(ALICE).getMetadata()).containsEntry(MemoryVectorStore.TYPE, "DECISION");
  }

  @Test
  @DisplayName("changes nothing when the answer is not valid JSON")
  void ignoresInvalidJson() {
    var model = new ScriptedLanguageModel("{\"facts\": [ {\"type\": \"FACT\", \"text\": oops");

    var report = consolidator(model).process(turn(ALICE, "My team has thirty people in it"));

    assertThat(report).isEqualTo(new FactConsolidator.Report(0, 0, 0, 0, 0));
    assertThat(factsOf(ALICE)).isEmpty();
  }

  @Test
  @DisplayName(
      "changes nothing when the model stalls past its timeout, and goes on with the next turn")
  void survivesAStall() {
    var model =
        new ScriptedLanguageModel(
            ScriptedLanguageModel.STALL, facts("FACT", "The user's team has 30 people"));
    FactConsolidator facts = consolidator(model);

    long start = System.nanoTime();
    assertThat(facts.process(turn(ALICE, "My team has thirty people")).added()).isZero();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(factsOf(ALICE)).isEmpty();

    assertThat(facts.process(turn(ALICE, "My team has thirty people, really")).added()).isOne();
    assertThat(factsOf(ALICE)).hasSize(1);
  }

  @Test
  @DisplayName("updates a fact the model says it refines and keeps the old text in its history")
  void updatesAndKeepsHistory() {
    var model =
        new ScriptedLanguageModel(facts("FACT", "The user lives in Berlin"))
            .then(facts("FACT", "The user lives in Berlin Mitte near the river"))
            .then(
                "{\"event\":\"UPDATE\",\"id\":\"0\",\"text\":\"The user lives in Berlin Mitte near"
                    + " the river\"}");
    FactConsolidator facts = consolidator(model);
    facts.process(turn(ALICE, "I live in Berlin"));
    String id = only(ALICE).getId();

    var report = facts.process(turn(ALICE, "Actually I live in Berlin Mitte, near the river"));

    assertThat(report.updated()).isOne();
    Document fact = only(ALICE);
    assertThat(fact.getId()).isEqualTo(id);
    assertThat(fact.getText()).endsWith("The user lives in Berlin Mitte near the river");
    assertThat(fact.getMetadata().get(FactConsolidator.HISTORY).toString())
        .contains("\"text\":\"The user lives in Berlin\"");
    assertThat(model.userPrompts().get(2)).contains("0: [FACT] The user lives in Berlin");
  }

  @Test
  @DisplayName("archives a contradicted fact instead of erasing it, and stores the new one")
  void archivesAContradictedFact() {
    var model =
        new ScriptedLanguageModel(facts("PREFERENCE", "The user likes pizza with pineapple"))
            .then(facts("PREFERENCE", "The user no longer likes pizza with pineapple"))
            .then("{\"event\":\"DELETE\",\"id\":\"0\"}");
    FactConsolidator facts = consolidator(model);
    facts.process(turn(ALICE, "I like pineapple pizza"));
    String old = only(ALICE).getId();

    var report = facts.process(turn(ALICE, "I don't like pineapple pizza any more"));

    assertThat(report.archived()).isOne();
    assertThat(store.get(old).orElseThrow().getMetadata())
        .containsEntry(MemoryVectorStore.STATUS, "ARCHIVED")
        .containsEntry(Lifecycle.ARCHIVED_BY, "contradicted");
    assertThat(factsOf(ALICE))
        .filteredOn(d -> "ACTIVE".equals(d.getMetadata().get(MemoryVectorStore.STATUS)))
        .extracting(Document::getText)
        .singleElement()
        .asString()
        .endsWith("The user no longer likes pizza with pineapple");
  }

  @Test
  @DisplayName("changes nothing when the model says the fact is known")
  void keepsAKnownFact() {
    var model =
        new ScriptedLanguageModel(facts("FACT", "The user works at a bank in Zurich"))
            .then(facts("FACT", "The user is employed by a bank in Zurich"))
            .then("{\"event\": \"NONE\"}");
    FactConsolidator facts = consolidator(model);
    facts.process(turn(ALICE, "I work at a bank in Zurich"));

    var report = facts.process(turn(ALICE, "As I said, I am employed by a bank in Zurich"));

    assertThat(report.unchanged()).isOne();
    assertThat(only(ALICE).getText()).endsWith("The user works at a bank in Zurich");
    assertThat(model.remaining()).isZero();
  }

  @Test
  @DisplayName("takes a near-identical fact as known without asking the model")
  void nearIdenticalIsNoneByRule() {
    var model =
        new ScriptedLanguageModel(facts("FACT", "The user works at a bank in Zurich"))
            .then(facts("FACT", "The user works at a bank in Zurich!"));
    FactConsolidator facts = consolidator(model);
    facts.process(turn(ALICE, "I work at a bank in Zurich"));

    var report = facts.process(turn(ALICE, "I work at a bank in Zurich!"));

    assertThat(report.unchanged()).isOne();
    assertThat(model.userPrompts()).hasSize(2); // two extractions, no decision
    assertThat(factsOf(ALICE)).hasSize(1);
  }

  @Test
  @DisplayName("asks the model about a near-identical fact that changes a value")
  void nearIdenticalWithAChangedValueGoesToTheModel() {
    String allergic =
        "The user is allergic to penicillin and has carried an allergy card since early childhood";
    String notAllergic =
        "The user is not allergic to penicillin and has carried an allergy card since early"
            + " childhood";
    var model =
        new ScriptedLanguageModel(facts("FACT", allergic))
            .then(facts("FACT", notAllergic))
            .then("{\"event\":\"DELETE\",\"id\":\"0\"}");
    FactConsolidator facts = consolidator(model);
    facts.process(turn(ALICE, "I am allergic to penicillin"));
    // with the hashing embedder the two facts are at cosine > 0.95: the rule alone would say NONE
    float[] a = embedder.embedPassages(List.of("[2026-03-02] " + allergic)).get(0);
    float[] b = embedder.embedPassages(List.of("[2026-03-02] " + notAllergic)).get(0);
    double cosine = 0;
    for (int i = 0; i < a.length; i++) {
      cosine += a[i] * b[i];
    }
    assertThat(cosine).isGreaterThanOrEqualTo(FactSettings.SAME_FACT);

    var report = facts.process(turn(ALICE, "Actually I am not allergic to penicillin"));

    assertThat(model.userPrompts()).hasSize(3); // the decision was asked for
    assertThat(report.archived()).isOne();
    assertThat(factsOf(ALICE))
        .filteredOn(d -> "ACTIVE".equals(d.getMetadata().get(MemoryVectorStore.STATUS)))
        .extracting(Document::getText)
        .singleElement()
        .asString()
        .endsWith(notAllergic);
  }

  @Test
  @DisplayName("compares only with the owner's own facts")
  void comparesWithinTheOwner() {
    var model =
        new ScriptedLanguageModel(facts("FACT", "The user lives in Berlin"))
            .then(facts("FACT", "The user lives in Berlin"));
    FactConsolidator facts = consolidator(model);
    facts.process(turn(ALICE, "I live in Berlin"));

    var report = facts.process(turn(BOB, "I live in Berlin"));

    assertThat(report.added()).isOne(); // no neighbour of bob's: added without a decision
    assertThat(factsOf(BOB)).hasSize(1);
    assertThat(factsOf(ALICE)).hasSize(1);
  }

  @Test
  @DisplayName("does nothing without a chat model")
  void doesNothingWithoutAModel() {
    FactConsolidator facts = consolidator(LanguageModel.none());

    assertThat(facts.active()).isFalse();
    facts.submit(turn(ALICE, "I live in Berlin"));
    assertThat(facts.process(turn(ALICE, "I live in Berlin")).candidates()).isZero();
    assertThat(store.count(null)).isZero();
  }

  @Test
  @DisplayName("returns from submit at once and extracts on its own thread")
  void submitIsOffThePath() throws Exception {
    var model =
        new ScriptedLanguageModel(ScriptedLanguageModel.STALL, facts("FACT", "The user has a cat"));
    FactConsolidator facts = consolidator(model);

    long start = System.nanoTime();
    facts.submit(turn(ALICE, "My team has thirty people")); // stalls 300 ms on the executor
    facts.submit(turn(ALICE, "I have a cat named Miso"));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(200));

    executor.shutdown();
    assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(only(ALICE).getText()).endsWith("The user has a cat");
  }

  @Test
  @DisplayName("writes nothing for an owner forgotten while the turn waited in the queue")
  void dropsQueuedWorkOfAForgottenOwner() throws Exception {
    var model = new ScriptedLanguageModel(facts("FACT", "The user has a cat"));
    FactConsolidator facts = consolidator(model);
    java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
    executor.execute(
        () -> {
          try {
            gate.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });

    facts.submit(turn(ALICE, "I have a cat named Miso"));
    facts.forgotten(ALICE);
    gate.countDown();
    executor.shutdown();
    assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

    assertThat(factsOf(ALICE)).isEmpty();
  }

  @Test
  @DisplayName(
      "writes nothing for an owner forgotten while the model decides on a fact, and never waits"
          + " for the model to forget")
  void dropsTheDecisionOfAnOwnerForgottenWhileTheModelWorks() throws Exception {
    var script =
        new ScriptedLanguageModel(facts("FACT", "The user lives in Berlin"))
            .then(facts("FACT", "The user lives in Berlin Mitte near the river"))
            .then("{\"event\":\"ADD\"}");
    // the third call is the decision on the second fact
    HeldLanguageModel model = HeldLanguageModel.holdingCall(3, script);
    FactConsolidator facts =
        new FactConsolidator(
            store,
            embedder,
            model,
            new FactSettings(true, Duration.ofSeconds(30), 10),
            clock,
            executor,
            Coordination.local(clock));
    facts.process(turn(ALICE, "I live in Berlin"));
    assertThat(factsOf(ALICE)).hasSize(1);
    ExecutorService worker = Executors.newSingleThreadExecutor();
    try {
      var report =
          worker.submit(
              () -> facts.process(turn(ALICE, "Actually I live in Berlin Mitte, near the river")));
      assertThat(model.awaitHeldCall(Duration.ofSeconds(10))).isTrue();
      // as the provider's forget does it: the generation first, then the records
      long start = System.nanoTime();
      facts.forgotten(ALICE);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
      store.delete(MemoryFilters.ofOwner(ALICE));
      model.release();
      assertThat(report.get(10, TimeUnit.SECONDS).added()).isZero();
    } finally {
      model.release();
      worker.shutdownNow();
    }
    assertThat(factsOf(ALICE)).isEmpty();
  }
}
