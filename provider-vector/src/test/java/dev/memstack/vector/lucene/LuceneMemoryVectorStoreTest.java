package dev.memstack.vector.lucene;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.MemoryVectorStoreContract;
import dev.memstack.vector.store.MemoryVectorStoreFactory;
import dev.memstack.vector.store.StoreEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.document.Document;

@DisplayName("The embedded Lucene store")
class LuceneMemoryVectorStoreTest extends MemoryVectorStoreContract {

  @Override
  protected MemoryVectorStoreFactory factory() {
    return new LuceneMemoryVectorStoreFactory();
  }

  @Test
  @DisplayName("keeps no deleted document, term or byte of an erased owner after an expunge")
  void anExpungeLeavesNothingOfDeletedRecordsInTheFiles() throws IOException {
    MemoryVectorStore store = open();
    String secret = "zq" + java.util.UUID.randomUUID().toString().replace("-", "");
    List<org.springframework.ai.document.Document> docs = new java.util.ArrayList<>();
    docs.add(personal("a1", ALICE, "Alice told us " + secret, T0).toDocument());
    for (int i = 0; i < 20; i++) { // one segment, where the deleted record is a small share
      docs.add(personal("b" + i, BOB, "Bob note " + i, T0).toDocument());
    }
    store.add(docs);
    store.delete(MemoryFilters.ofOwner(ALICE));
    Path root = dataDir.resolve(LuceneMemoryVectorStoreFactory.DIRECTORY);
    Path live = root.resolve(IndexFiles.readCurrent(root));
    try (DirectoryReader before = DirectoryReader.open(FSDirectory.open(live))) {
      assertThat(before.maxDoc()).as("a deleted document").isGreaterThan(before.numDocs());
    }

    store.expungeDeleted();

    try (DirectoryReader after = DirectoryReader.open(FSDirectory.open(live))) {
      assertThat(after.maxDoc()).isEqualTo(after.numDocs()).isEqualTo(20);
      assertThat(after.docFreq(new Term(MemoryVectorStore.OWNER, ALICE.value()))).isZero();
      assertThat(after.docFreq(new Term(LuceneRecords.TEXT, secret))).isZero();
    }
    try (Stream<Path> files = Files.walk(root)) {
      byte[] needle = secret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      assertThat(files.filter(Files::isRegularFile).filter(f -> holds(f, needle))).isEmpty();
    }
    assertThat(store.count(MemoryFilters.ofOwner(BOB))).isEqualTo(20);
    assertThat(store.get("b3")).isPresent();
  }

  @Test
  @DisplayName("merges its small segments into one and answers every search as before")
  void mergesItsSmallSegmentsAndAnswersAsBefore() throws IOException {
    MemoryVectorStore store = open();
    for (int batch = 0; batch < 6; batch++) { // each write is made visible: a segment each
      List<org.springframework.ai.document.Document> docs = new java.util.ArrayList<>();
      for (int i = 0; i < 5; i++) {
        docs.add(
            personal(
                    "r" + batch + "-" + i,
                    batch % 2 == 0 ? ALICE : BOB,
                    "note " + batch + " " + i,
                    T0)
                .toDocument());
      }
      store.add(docs);
    }
    store.delete(List.of("r1-0"));
    Path root = dataDir.resolve(LuceneMemoryVectorStoreFactory.DIRECTORY);
    Path live = root.resolve(IndexFiles.readCurrent(root));
    assertThat(segments(live)).isGreaterThanOrEqualTo(6);
    List<String> vectorBefore = ids(store.vectorSearch(embedder.vector("note 3 1"), null, 10, -1));
    List<String> keywordBefore = ids(store.keywordSearch("note", MemoryFilters.ofOwner(ALICE), 20));

    ((LuceneMemoryVectorStore) store).mergeSmallSegments();

    assertThat(segments(live)).as("merged and committed").isEqualTo(1);
    try (Stream<Path> files = Files.list(live)) {
      assertThat(files.filter(f -> f.toString().endsWith(".si")))
          .as("old segments deleted")
          .hasSize(1);
    }
    assertThat(ids(store.vectorSearch(embedder.vector("note 3 1"), null, 10, -1)))
        .isEqualTo(vectorBefore);
    assertThat(ids(store.keywordSearch("note", MemoryFilters.ofOwner(ALICE), 20)))
        .isEqualTo(keywordBefore)
        .hasSize(15);
    assertThat(store.count(null)).isEqualTo(29);
    assertThat(store.get("r1-0")).isEmpty();
  }

  private static int segments(Path index) throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(FSDirectory.open(index))) {
      return reader.leaves().size();
    }
  }

  private static List<String> ids(List<org.springframework.ai.document.Document> docs) {
    return docs.stream().map(org.springframework.ai.document.Document::getId).toList();
  }

  private static boolean holds(Path file, byte[] needle) {
    try {
      String bytes =
          new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.ISO_8859_1);
      return bytes.contains(new String(needle, java.nio.charset.StandardCharsets.ISO_8859_1));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  @DisplayName("answers exactly without a graph, and builds it when a search first needs it")
  void buildsItsGraphWhenASearchFirstNeedsIt() throws Exception {
    LuceneMemoryVectorStore store = (LuceneMemoryVectorStore) open();
    int size = FilteredScan.MAX_DOCS + 300;
    List<MemoryRecord> records = new java.util.ArrayList<>();
    for (int i = 0; i < size; i++) {
      records.add(personal("g" + i, i % 3 == 0 ? ALICE : BOB, "graph note " + i, T0));
    }
    for (int from = 0; from < size; from += 1000) {
      store.add(
          records.subList(from, Math.min(size, from + 1000)).stream()
              .map(MemoryRecord::toDocument)
              .toList());
    }
    store.delete(List.of("g5", "g6"));
    assertThat(store.commitUserData()).containsEntry("memstack.graph", "0");
    assertThat(vectorFieldDocs(store)).as("no graph yet").isZero();
    List<Document> before = new java.util.ArrayList<>();
    for (int i = 0; i < size; i += 97) {
      store.get("g" + i).ifPresent(before::add);
    }

    float[] query = embedder.vector("graph note 4242");
    List<String> aliceBefore = ids(store.vectorSearch(query, MemoryFilters.ofOwner(ALICE), 5, -1));
    assertThat(aliceBefore).hasSize(5);
    List<String> exact = ids(store.vectorSearch(query, null, 10, -1)); // starts the graph
    assertThat(exact).hasSize(10).contains("g4242");
    assertThat(store.awaitGraph(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();

    assertThat(store.commitUserData()).containsEntry("memstack.graph", "1");
    assertThat(vectorFieldDocs(store)).isEqualTo(size - 2);
    for (Document old : before) {
      Document now = store.get(old.getId()).orElseThrow();
      assertThat(now.getText()).isEqualTo(old.getText());
      assertThat(now.getMetadata()).isEqualTo(old.getMetadata());
    }
    assertThat(ids(store.vectorSearch(query, null, 10, -1))).contains("g4242");
    assertThat(ids(store.vectorSearch(query, MemoryFilters.ofOwner(ALICE), 5, -1)))
        .as("an owner's search: exact before and after")
        .isEqualTo(aliceBefore);
    List<String> approximate = ids(store.vectorSearch(query, null, 10, -1));
    assertThat(approximate.stream().filter(exact::contains).count()).isGreaterThanOrEqualTo(8);
    store.add(List.of(personal("late", ALICE, "written after the graph", T0).toDocument()));
    assertThat(vectorFieldDocs(store)).isEqualTo(size - 1);

    store.close();
    try (LuceneMemoryVectorStore reopened = (LuceneMemoryVectorStore) open()) {
      assertThat(reopened.commitUserData()).containsEntry("memstack.graph", "1");
      assertThat(
              reopened.count(MemoryFilters.ofOwner(ALICE))
                  + reopened.count(MemoryFilters.ofOwner(BOB)))
          .isEqualTo(size - 1);
      assertThat(ids(reopened.vectorSearch(query, null, 10, -1))).contains("g4242");
    }
  }

  @Test
  @DisplayName("finishes at its next start a graph build that a stop interrupted")
  void resumesAnInterruptedGraphBuild() throws Exception {
    LuceneMemoryVectorStore store = (LuceneMemoryVectorStore) open();
    List<org.springframework.ai.document.Document> docs = new java.util.ArrayList<>();
    for (int i = 0; i < 300; i++) {
      docs.add(personal("i" + i, ALICE, "interrupted note " + i, T0).toDocument());
    }
    store.add(docs);
    // what a stop right after the switch leaves: graph mode committed, every record still flat
    store
        .index()
        .write(
            ix -> {
              ix.graphed = true;
              ix.commit();
            },
            false);
    assertThat(vectorFieldDocs(store)).isZero();
    store.close();

    try (LuceneMemoryVectorStore reopened = (LuceneMemoryVectorStore) open()) {
      assertThat(reopened.awaitGraph(1, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
      assertThat(vectorFieldDocs(reopened)).isEqualTo(300);
      assertThat(reopened.count(MemoryFilters.ofOwner(ALICE))).isEqualTo(300);
      assertThat(ids(reopened.vectorSearch(embedder.vector("interrupted note 7"), null, 1, -1)))
          .containsExactly("i7");
    }
  }

  /** How many live documents of the store's index have the HNSW field. */
  private static long vectorFieldDocs(LuceneMemoryVectorStore store) {
    store.refresh();
    return store
        .index()
        .read(
            (searcher, ix) -> {
              long found = 0;
              for (org.apache.lucene.index.LeafReaderContext leaf :
                  searcher.getIndexReader().leaves()) {
                org.apache.lucene.index.FloatVectorValues values =
                    leaf.reader().getFloatVectorValues(LuceneRecords.VECTOR);
                org.apache.lucene.util.Bits live = leaf.reader().getLiveDocs();
                if (values == null) {
                  continue;
                }
                for (int doc = values.nextDoc();
                    doc != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS;
                    doc = values.nextDoc()) {
                  if (live == null || live.get(doc)) {
                    found++;
                  }
                }
              }
              return found;
            });
  }

  @Test
  @DisplayName("keeps an acknowledged write in a copy of its files taken while it is still open")
  void keepsAnAcknowledgedWriteInACrashCopy(@TempDir Path crashCopy) throws IOException {
    MemoryVectorStore store = open();
    store.add(List.of(personal("r1", ALICE, "written before the crash", T0).toDocument()));

    // what a power cut would leave: the files as they are now, the writer never closed
    Path root = dataDir.resolve(LuceneMemoryVectorStoreFactory.DIRECTORY);
    copyTree(root, crashCopy.resolve("lucene"));
    Files.deleteIfExists(findLock(crashCopy.resolve("lucene")));

    try (LuceneMemoryVectorStore recovered =
        LuceneMemoryVectorStore.open(
            crashCopy.resolve("lucene"), new StoreEmbedder(embedder, 8), false, "reembed")) {
      assertThat(recovered.get("r1")).isPresent();
      assertThat(recovered.count(MemoryFilters.ofOwner(ALICE))).isEqualTo(1);
    }
  }

  @Test
  @DisplayName("replays its write-ahead log after a crash and skips a batch cut short")
  void replaysItsLogAfterACrash(@TempDir Path crashCopy) throws IOException {
    MemoryVectorStore store = open();
    store.add(List.of(personal("r1", ALICE, "first", T0).toDocument()));
    store.add(List.of(personal("r2", ALICE, "second", T0).toDocument()));
    store.updateMetadata("r1", java.util.Map.of(MemoryVectorStore.STATUS, "ARCHIVED"));
    store.add(List.of(personal("r3", BOB, "third", T0).toDocument()));

    Path root = dataDir.resolve(LuceneMemoryVectorStoreFactory.DIRECTORY);
    Path copy = crashCopy.resolve("lucene");
    copyTree(root, copy);
    Files.deleteIfExists(findLock(copy));
    Path log;
    try (Stream<Path> files = Files.list(copy)) {
      log =
          files
              .filter(p -> p.getFileName().toString().contains(".translog-"))
              .findFirst()
              .orElseThrow();
    }
    // the status change is logged after the add of r1, so replay ends with r1 archived
    String text = Files.readString(log);
    assertThat(text).contains("\"r3\"").contains("\"ARCHIVED\"");
    assertThat(text.lastIndexOf("\"ARCHIVED\"")).isGreaterThan(text.indexOf("\"r1\""));
    Files.writeString(
        log, "[{\"id\":\"r4\",\"text\":\"cut sh", java.nio.file.StandardOpenOption.APPEND);

    try (LuceneMemoryVectorStore recovered =
        LuceneMemoryVectorStore.open(copy, new StoreEmbedder(embedder, 8), false, "reembed")) {
      assertThat(recovered.count(null)).isEqualTo(3);
      assertThat(recovered.get("r1").orElseThrow().getMetadata())
          .containsEntry(MemoryVectorStore.STATUS, "ARCHIVED");
      assertThat(recovered.vectorSearch(embedder.vector("third"), null, 1, 0.99))
          .extracting(org.springframework.ai.document.Document::getId)
          .containsExactly("r3");
      assertThat(recovered.get("r4")).isEmpty();
    }
  }

  @Test
  @DisplayName("a batch write is durable and known at once, and searchable within a second")
  void aBatchWriteBecomesSearchableWithinASecond(@TempDir Path crashCopy) throws Exception {
    MemoryVectorStore store = open();
    store.add(List.of(personal("r0", ALICE, "written alone", T0).toDocument()));
    store.addBatch(
        List.of(
            personal("r1", ALICE, "first of a batch", T0).toDocument(),
            personal("r2", BOB, "second of a batch", T0).toDocument()));

    assertThat(store.existingIds(List.of("r0", "r1", "r2", "r9")))
        .containsExactlyInAnyOrder("r0", "r1", "r2");
    // a crash now keeps the batch: it is in the write-ahead log
    Path root = dataDir.resolve(LuceneMemoryVectorStoreFactory.DIRECTORY);
    copyTree(root, crashCopy.resolve("lucene"));
    Files.deleteIfExists(findLock(crashCopy.resolve("lucene")));
    try (LuceneMemoryVectorStore recovered =
        LuceneMemoryVectorStore.open(
            crashCopy.resolve("lucene"), new StoreEmbedder(embedder, 8), false, "reembed")) {
      assertThat(recovered.count(null)).isEqualTo(3);
    }
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (store.count(null) < 3 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(store.count(null)).as("searchable after the refresh interval").isEqualTo(3);
    assertThat(store.vectorSearch(embedder.vector("second of a batch"), null, 1, 0.99))
        .extracting(org.springframework.ai.document.Document::getId)
        .containsExactly("r2");
  }

  @Test
  @DisplayName("a batch write is searchable at once after refresh, and get finds it before")
  void aBatchWriteIsSearchableAfterRefresh() {
    MemoryVectorStore store = open();
    store.addBatch(List.of(personal("r1", ALICE, "batched", T0).toDocument()));
    assertThat(store.get("r1")).isPresent();
    store.addBatch(List.of(personal("r2", ALICE, "batched too", T0).toDocument()));
    store.refresh();
    assertThat(store.count(MemoryFilters.ofOwner(ALICE))).isEqualTo(2);
  }

  @Test
  @DisplayName("serves many readers while one thread writes")
  void servesManyReadersWhileOneThreadWrites() throws Exception {
    MemoryVectorStore store = open();
    store.add(List.of(personal("seed", ALICE, "seed record", T0).toDocument()));
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      java.util.List<java.util.concurrent.Future<?>> futures = new java.util.ArrayList<>();
      futures.add(
          pool.submit(
              () -> {
                for (int i = 0; i < 60; i++) {
                  store.add(List.of(personal("w" + i, ALICE, "written " + i, T0).toDocument()));
                }
              }));
      for (int t = 0; t < 3; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 200; i++) {
                    assertThat(
                            store.vectorSearch(
                                embedder.vector("seed record"),
                                MemoryFilters.ofOwner(ALICE),
                                5,
                                -1))
                        .isNotEmpty();
                    store.keywordSearch("written", null, 5);
                  }
                }));
      }
      for (java.util.concurrent.Future<?> future : futures) {
        future.get(60, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(store.count(MemoryFilters.ofOwner(ALICE))).isEqualTo(61);
  }

  @Test
  @DisplayName("matches keywords on content words only, not on question words")
  void matchesKeywordsOnContentWordsOnly() {
    MemoryVectorStore store = open();
    store.add(
        List.of(
            personal("r1", ALICE, "[2026-03-02] user: What's the capital of Australia?", T0)
                .toDocument(),
            personal("r2", ALICE, "[2026-03-02] user: My sister lives in Lisbon", T0).toDocument(),
            personal("r3", ALICE, "[2026-03-02] assistant: I work as a nurse", T0).toDocument()));

    assertThat(store.keywordSearch("what's my job? do you remember what I have?", null, 5))
        .isEmpty();
    assertThat(store.keywordSearch("Which capitals?", null, 5))
        .extracting(org.springframework.ai.document.Document::getId)
        .containsExactly("r1");
    assertThat(store.keywordSearch("the user and the assistant", null, 5)).isEmpty();
  }

  @Test
  @DisplayName("keeps the old index after a re-embedding cut short and removes its leftovers")
  void keepsTheOldIndexAfterAnInterruptedReembedding() throws IOException {
    MemoryVectorStore store = open();
    store.add(List.of(personal("r1", ALICE, "kept", T0).toDocument()));
    store.close();
    Path root = dataDir.resolve(LuceneMemoryVectorStoreFactory.DIRECTORY);
    // what a crash during reembed() leaves: a half-built next generation, CURRENT not yet switched
    Files.createDirectories(root.resolve("index-2"));
    Files.writeString(root.resolve("index-2").resolve("_0.cfs"), "half written");
    Files.writeString(root.resolve("index-2.translog-1"), "[]\n");

    MemoryVectorStore reopened = open();
    assertThat(reopened.get("r1")).isPresent();
    assertThat(root.resolve("index-2")).doesNotExist();
    assertThat(root.resolve("index-2.translog-1")).doesNotExist();
    assertThat(Files.readString(root.resolve("CURRENT")).trim()).isEqualTo("index-1");
  }

  @Test
  @DisplayName("refuses a second opening of the same directory while the first is open")
  void refusesASecondOpening() {
    open();
    assertThatThrownBy(() -> open())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("in use by another process");
  }

  @Test
  @DisplayName("records the model id and dimension in the commit")
  void recordsTheModelInTheCommit() {
    LuceneMemoryVectorStore store = (LuceneMemoryVectorStore) open();
    store.add(List.of(personal("r1", ALICE, "hello", T0).toDocument()));
    assertThat(store.commitUserData())
        .containsEntry("memstack.model", "synthetic-a")
        .containsEntry("memstack.dimension", "32");
  }

  @Test
  @DisplayName("fails every call after close with IllegalStateException")
  void failsAfterClose() {
    MemoryVectorStore store = open();
    store.close();
    assertThatThrownBy(() -> store.count(null)).isInstanceOf(IllegalStateException.class);
    MemoryRecord record = personal("r1", ALICE, "late", T0);
    assertThatThrownBy(() -> store.add(List.of(record.toDocument())))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  @DisplayName("reads a feedback file of counts only, and rewrites it with trust rows")
  void readsAFeedbackFileOfCountsOnly() throws IOException {
    MemoryVectorStore first = open();
    first.add(
        List.of(
            new MemoryRecord(
                    "t1",
                    "team note",
                    AGENT,
                    null,
                    dev.memstack.spi.Scope.TEAM,
                    dev.memstack.vector.store.MemoryStatus.ACTIVE,
                    "FACT",
                    null,
                    null,
                    T0,
                    Map.of())
                .toDocument()));
    first.close();
    Path file = dataDir.resolve(LuceneMemoryVectorStoreFactory.DIRECTORY).resolve("feedback.jsonl");
    // the format before trust: counts only
    Files.writeString(
        file,
        "{\"add\":\"user:alice\",\"counts\":{\"t1\":2,\"gone\":1}}\n"
            + "{\"add\":\"user:alice\",\"counts\":{\"t1\":1}}\n");

    MemoryVectorStore second = open();

    assertThat(second.feedback(ALICE, List.of("t1", "gone"))).containsExactly(Map.entry("t1", 3L));
    assertThat(second.trust(ALICE, List.of("t1")))
        .containsEntry("t1", new dev.memstack.vector.store.Trust(3, 0, 0, 0, false));
    assertThat(Files.readString(file)).contains("\"set\":\"user:alice\"").doesNotContain("add");
    second.addTrust(
        ALICE,
        List.of("t1"),
        dev.memstack.vector.store.TrustChange.wrong(T0, java.time.Duration.ofDays(60)));
    second.close();
    assertThat(open().trust(ALICE, List.of("t1")).get("t1").wrongs()).isOne();
  }

  private static Path findLock(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.getFileName().toString().equals("write.lock"))
          .findFirst()
          .orElse(root.resolve("none"));
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : files.toList()) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target);
        }
      }
    }
  }
}
