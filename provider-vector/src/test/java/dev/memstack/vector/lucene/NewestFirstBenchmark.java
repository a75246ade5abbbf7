package dev.memstack.vector.lucene;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.StoreEmbedder;
import dev.memstack.vector.store.SyntheticEmbedder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.document.LongField;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSelector;

/**
 * A newest-first page of one owner's records in the embedded store: the sort the store used before
 * ({@code created_at} descending then id, a {@code TopFieldCollector} asked for {@code offset +
 * limit} hits) against {@link NewestFirst}, on the same searcher, alternately, for a deep page (the
 * last 100) and a first page (20). {@code records} records of one owner, a tenth of them sharing
 * their second with another; the times of the second half of {@code rounds} rounds are summarised
 * (ms, p50 and p95).
 *
 * <pre>
 * ./mvnw -B -q -pl memory-spi,memory-support,provider-vector test-compile
 * cd provider-vector
 * ../mvnw -B -q dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) \
 *   dev.memstack.vector.lucene.NewestFirstBenchmark 10000 400
 * </pre>
 */
public final class NewestFirstBenchmark {

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 400;
    Path root = Files.createTempDirectory("newest-first-bench");
    LuceneIndex index =
        new LuceneIndex(root, new StoreEmbedder(new SyntheticEmbedder("synthetic", 32), 64));
    index.open(false, "reembed");
    AgentId agent = AgentId.of("bench");
    OwnerKey owner = OwnerKey.of("api:bench");
    Random random = new Random(42);
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    List<org.springframework.ai.document.Document> batch = new ArrayList<>();
    LuceneWrites writes = new LuceneWrites(index);
    for (int i = 0; i < records; i++) {
      int second = random.nextInt(10) == 0 ? i - 1 : i; // a tenth share a time with another
      batch.add(
          new MemoryRecord(
                  "r-" + Integer.toHexString(random.nextInt()) + "-" + i,
                  "note " + i,
                  agent,
                  owner,
                  Scope.PERSONAL,
                  MemoryStatus.ACTIVE,
                  "RAW",
                  "c-" + i / 50,
                  "t-" + i,
                  t0.plusSeconds(Math.max(0, second)),
                  Map.of())
              .toDocument());
      if (batch.size() == 1000) {
        writes.add(batch, true);
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      writes.add(batch, true);
    }
    Query query = LuceneFilterQueries.of(MemoryFilters.visibleTo(agent, owner));
    Sort newestFirst =
        new Sort(
            LongField.newSortField(
                MemoryVectorStore.CREATED_AT, true, SortedNumericSelector.Type.MAX),
            new SortField(MemoryVectorStore.ID, SortField.Type.STRING));
    int deep = records - 100;
    double[][] times = new double[4][rounds - rounds / 2];
    for (int round = 0; round < rounds; round++) {
      for (int variant = 0; variant < 4; variant++) {
        int v = variant;
        long start = System.nanoTime();
        int[] page =
            index.read(
                (searcher, ix) ->
                    switch (v) {
                      case 0 -> tail(searcher.search(query, deep + 100, newestFirst), deep);
                      case 1 -> NewestFirst.page(searcher, query, deep, 100);
                      case 2 -> tail(searcher.search(query, 20, newestFirst), 0);
                      default -> NewestFirst.page(searcher, query, 0, 20);
                    });
        if (round >= rounds / 2) {
          times[v][round - rounds / 2] = (System.nanoTime() - start) / 1e6;
        }
        if (page.length == 0) {
          throw new IllegalStateException("empty page");
        }
      }
    }
    String[] names = {
      "deep page, TopFieldCollector", "deep page, NewestFirst",
      "first page, TopFieldCollector", "first page, NewestFirst"
    };
    System.out.printf("%d records of one owner, %d rounds%n", records, rounds);
    for (int v = 0; v < 4; v++) {
      double[] sorted = times[v].clone();
      Arrays.sort(sorted);
      System.out.printf(
          "%-30s p50 %6.2f ms  p95 %6.2f ms%n",
          names[v], sorted[sorted.length / 2], sorted[(int) Math.ceil(sorted.length * 0.95) - 1]);
    }
    index.close();
  }

  private static int[] tail(org.apache.lucene.search.TopDocs top, int from) {
    int[] docs = new int[Math.max(0, top.scoreDocs.length - from)];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = top.scoreDocs[from + i].doc;
    }
    return docs;
  }
}
