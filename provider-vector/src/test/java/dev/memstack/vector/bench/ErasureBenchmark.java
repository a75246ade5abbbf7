package dev.memstack.vector.bench;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.testing.TestPostgres;
import dev.memstack.vector.lucene.LuceneMemoryVectorStore;
import dev.memstack.vector.pgvector.PgVectorMemoryStore;
import dev.memstack.vector.pgvector.PgVectorSettings;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import dev.memstack.vector.store.SyntheticEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.springframework.ai.document.Document;

/**
 * Measures what erasing an owner costs each store: {@code records} records (about 200 characters,
 * 32-dimensional synthetic vectors) of {@code owners} owners in turn, then for {@code erasures}
 * owners one after the other what {@code VectorMemoryProvider.forget} does: the delete by owner and
 * {@link MemoryVectorStore#expungeDeleted()} (Lucene: merge of the deleted documents; pgvector:
 * {@code VACUUM}). The embedded store always; pgvector when {@code MEMSTACK_PG_URL} is set. Prints
 * one Markdown table row per store: median, min and max in ms.
 *
 * <p>Run: {@code ./mvnw -B -q -pl provider-vector test-compile
 * org.codehaus.mojo:exec-maven-plugin:3.5.0:java -Dexec.classpathScope=test
 * -Dexec.mainClass=dev.memstack.vector.bench.ErasureBenchmark -Dexec.args="10000 100 5"}.
 */
public final class ErasureBenchmark {

  private static final int BATCH = 500;

  private ErasureBenchmark() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int owners = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int erasures = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    StoreEmbedder embedder = new StoreEmbedder(new SyntheticEmbedder("synthetic", 32), 256);
    Path root = Files.createTempDirectory("memstack-vector-erasure");
    try (MemoryVectorStore store = LuceneMemoryVectorStore.open(root, embedder, false, "-")) {
      measure("embedded (Lucene)", store, records, owners, erasures);
    } finally {
      try (Stream<Path> files = Files.walk(root)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    TestPostgres postgres = TestPostgres.environment().orElse(null);
    if (postgres == null) {
      System.out.println(TestPostgres.URL_VARIABLE + " not set: pgvector left out");
      return;
    }
    String schema = "bench_erasure_" + Long.toHexString(System.nanoTime());
    PgVectorSettings settings =
        PgVectorSettings.of(postgres.url(), postgres.user(), postgres.password())
            .withSchema(schema);
    try (MemoryVectorStore store = PgVectorMemoryStore.open(settings, embedder, false, "-")) {
      measure("pgvector", store, records, owners, erasures);
    } finally {
      postgres.dropSchema(schema);
    }
  }

  private static void measure(
      String name, MemoryVectorStore store, int records, int owners, int erasures)
      throws IOException {
    Random random = new Random(42);
    List<Document> batch = new ArrayList<>(BATCH);
    for (int i = 0; i < records; i++) {
      batch.add(record(i, "api:owner-" + (i % owners), random).toDocument());
      if (batch.size() == BATCH) {
        store.add(batch);
        batch.clear();
      }
    }
    store.add(batch);
    double[] delete = new double[erasures];
    double[] expunge = new double[erasures];
    for (int k = 0; k < erasures; k++) {
      long start = System.nanoTime();
      store.delete(MemoryFilters.ofOwner(OwnerKey.of("api:owner-" + k)));
      long deleted = System.nanoTime();
      store.expungeDeleted();
      delete[k] = (deleted - start) / 1e6;
      expunge[k] = (System.nanoTime() - deleted) / 1e6;
    }
    System.out.printf(
        "| %s | %d | %d | %s | %s |%n", name, records, owners, summary(delete), summary(expunge));
  }

  private static MemoryRecord record(int i, String owner, Random random) {
    StringBuilder text = new StringBuilder("user: ");
    while (text.length() < 200) {
      text.append(Long.toString(random.nextLong() & Long.MAX_VALUE, 36), 0, 6).append(' ');
    }
    return new MemoryRecord(
        "r" + i,
        text.toString().strip(),
        AgentId.of("a1"),
        OwnerKey.of(owner),
        Scope.PERSONAL,
        MemoryStatus.ACTIVE,
        "RAW",
        "c1",
        "t" + i,
        Instant.parse("2026-03-02T10:00:00Z"),
        Map.of());
  }

  private static String summary(double[] millis) {
    double[] sorted = millis.clone();
    Arrays.sort(sorted);
    return String.format(
        "%.1f (%.1f-%.1f)", sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]);
  }
}
