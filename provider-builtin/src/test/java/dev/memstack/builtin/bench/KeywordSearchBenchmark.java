package dev.memstack.builtin.bench;

import dev.memstack.builtin.memory.WorkspaceRules;
import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.store.PgSettings;
import dev.memstack.builtin.store.files.FileStamp;
import dev.memstack.builtin.store.files.LuceneKeywordIndex;
import dev.memstack.builtin.store.postgres.PgWorkspaceDatabase;
import dev.memstack.builtin.store.postgres.PostgresKeywordIndex;
import dev.memstack.builtin.store.postgres.PostgresWorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Keyword search of the builtin provider on PostgreSQL ({@link PostgresKeywordIndex}) against the
 * Lucene index ({@link LuceneKeywordIndex}) on the same corpus and queries: {@code owners} owners
 * with {@code notes} daily notes of ten paragraphs each (Zipf-distributed words of a 3,000-word
 * vocabulary; every fifth paragraph Chinese, from 400 common characters), a TEAM file; {@code
 * queries} queries of 3-6 words (or 4-8 characters) taken from a random paragraph of a random owner
 * plus a frequent word, searched in that owner's visible buckets (personal, team, global), top 10.
 * Prints the mean overlap of the two top-10 lists (paragraphs in both / paragraphs in the larger),
 * the share of queries whose source paragraph is the first hit, and p50/p95 latency of each.
 *
 * <p>Run (with {@code MEMSTACK_PG_URL}, {@code MEMSTACK_PG_USER}, {@code MEMSTACK_PG_PASSWORD}):
 * {@code ./mvnw -B -q -pl provider-builtin test-compile dependency:build-classpath
 * -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test}, then {@code java -cp
 * provider-builtin/target/test-classes:provider-builtin/target/classes:$(cat /tmp/cp.txt)
 * dev.memstack.builtin.bench.KeywordSearchBenchmark 200 10 500} (a fourth argument {@code keep}
 * leaves the tables for {@code EXPLAIN}).
 */
public final class KeywordSearchBenchmark {

  private static final int PARAGRAPHS_PER_NOTE = 10;
  private static final AgentId AGENT = AgentId.of("a1");

  private KeywordSearchBenchmark() {}

  public static void main(String[] args) throws Exception {
    int owners = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int notes = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int queries = args.length > 2 ? Integer.parseInt(args[2]) : 500;
    boolean keep = args.length > 3 && args[3].equals("keep"); // leave the tables for EXPLAIN
    String url = System.getenv("MEMSTACK_PG_URL");
    if (url == null || url.isBlank()) {
      throw new IllegalStateException("set MEMSTACK_PG_URL (and MEMSTACK_PG_USER/PASSWORD)");
    }
    String user = blankToNull(System.getenv("MEMSTACK_PG_USER"));
    String password = blankToNull(System.getenv("MEMSTACK_PG_PASSWORD"));
    String schema = "bench_keyword_" + System.currentTimeMillis();
    Random random = new Random(7);
    String[] vocabulary = vocabulary(random, 3000);
    String hanzi =
        "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只主没公从知全点从长头间样老意把身本已实现相向第开性很知手因果更由进问内期等机给情重理位直正员活百明被最路提向合变次使教数特它气至完原战太者动正体结比应放程高门力关向感产白反果东平道市美制即走品边被再且真象给量车直样记海名"
            .repeat(1);
    PgSettings settings = new PgSettings(url, user, password, schema, "builtin_", 4, Duration.ZERO);
    Path dir = Files.createTempDirectory("memstack-keyword-bench");
    List<String[]> paragraphsByOwner = new ArrayList<>();
    try (PgWorkspaceDatabase database = PgWorkspaceDatabase.open(settings);
        LuceneKeywordIndex lucene = new LuceneKeywordIndex(dir, 80, Duration.ofSeconds(60))) {
      PostgresKeywordIndex pg = new PostgresKeywordIndex(database, 80);
      PostgresWorkspaceStore store =
          new PostgresWorkspaceStore(
              database, pg, Clock.systemUTC(), WorkspaceRules::isCoreForSearch, (b, c) -> {});
      long loadStart = System.nanoTime();
      String team = paragraphs(random, vocabulary, hanzi, 20);
      write(store, lucene, Bucket.team(AGENT), WorkspacePath.of("KNOWLEDGE.md"), team, true);
      for (int o = 0; o < owners; o++) {
        Bucket bucket = Bucket.personal(AGENT, OwnerKey.of("api:owner-" + o));
        List<String> own = new ArrayList<>();
        for (int n = 0; n < notes; n++) {
          String content = paragraphs(random, vocabulary, hanzi, PARAGRAPHS_PER_NOTE);
          own.addAll(Arrays.asList(content.split("\n\n")));
          WorkspacePath path =
              WorkspacePath.of(String.format("memory/2026-%02d-%02d.md", 1 + n / 28, 1 + n % 28));
          write(store, lucene, bucket, path, content, false);
        }
        paragraphsByOwner.add(own.toArray(String[]::new));
      }
      lucene.refresh();
      lucene.commit();
      try (Connection connection = database.dataSource().getConnection();
          Statement statement = connection.createStatement()) {
        statement.execute("VACUUM ANALYZE " + database.chunks);
        statement.execute("VACUUM ANALYZE " + database.buckets);
      }
      double loadSeconds = (System.nanoTime() - loadStart) / 1e9;

      double[] luceneMs = new double[queries];
      double[] pgMs = new double[queries];
      double overlap = 0;
      int luceneFirst = 0;
      int pgFirst = 0;
      for (int q = -20; q < queries; q++) { // 20 warm-up queries
        int owner = random.nextInt(owners);
        String[] own = paragraphsByOwner.get(owner);
        String source = own[random.nextInt(own.length)];
        String query = query(random, source, vocabulary);
        List<Bucket> visible =
            List.of(
                Bucket.personal(AGENT, OwnerKey.of("api:owner-" + owner)),
                Bucket.team(AGENT),
                Bucket.global());
        long t0 = System.nanoTime();
        List<KeywordHit> l = lucene.search(visible, query, 10, 50, 1.5, Set.of());
        long t1 = System.nanoTime();
        List<KeywordHit> p = pg.search(visible, query, 10, 50, 1.5, Set.of());
        long t2 = System.nanoTime();
        if (q < 0) {
          continue;
        }
        luceneMs[q] = (t1 - t0) / 1e6;
        pgMs[q] = (t2 - t1) / 1e6;
        Set<String> lk = keys(l);
        Set<String> pk = keys(p);
        Set<String> both = new HashSet<>(lk);
        both.retainAll(pk);
        int larger = Math.max(lk.size(), pk.size());
        overlap += larger == 0 ? 1 : (double) both.size() / larger;
        luceneFirst += !l.isEmpty() && l.get(0).text().equals(source.strip()) ? 1 : 0;
        pgFirst += !p.isEmpty() && p.get(0).text().equals(source.strip()) ? 1 : 0;
      }
      System.out.printf(
          "corpus: %d owners x %d notes x %d paragraphs (+20 team), loaded in %.1f s%n",
          owners, notes, PARAGRAPHS_PER_NOTE, loadSeconds);
      System.out.printf(
          "| queries | top-10 overlap | source first: Lucene / PG | Lucene p50 / p95 ms | PG p50 /"
              + " p95 ms |%n");
      System.out.printf(
          "| %d | %.3f | %.3f / %.3f | %s | %s |%n",
          queries,
          overlap / queries,
          (double) luceneFirst / queries,
          (double) pgFirst / queries,
          percentiles(luceneMs),
          percentiles(pgMs));
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
      if (keep) {
        System.out.println("tables kept in schema " + schema);
      } else {
        try (PgWorkspaceDatabase database = PgWorkspaceDatabase.open(settings);
            Connection connection = database.dataSource().getConnection();
            Statement statement = connection.createStatement()) {
          statement.execute("DROP SCHEMA \"" + schema + "\" CASCADE");
        }
      }
    }
  }

  private static void write(
      PostgresWorkspaceStore store,
      LuceneKeywordIndex lucene,
      Bucket bucket,
      WorkspacePath path,
      String content,
      boolean core)
      throws IOException {
    store.update(
        bucket,
        tx -> {
          tx.write(path, content, new FileMeta(false, 100));
          return null;
        });
    lucene.replace(bucket, path, content, new FileStamp(1, 1), Instant.EPOCH, core);
  }

  private static Set<String> keys(List<KeywordHit> hits) {
    Set<String> keys = new HashSet<>();
    for (KeywordHit hit : hits) {
      keys.add(hit.bucket().key() + "|" + hit.path().value() + "|" + hit.text());
    }
    return keys;
  }

  private static String[] vocabulary(Random random, int size) {
    Set<String> words = new HashSet<>();
    String letters = "abcdefghijklmnopqrstuvwxyz";
    while (words.size() < size) {
      int length = 2 + random.nextInt(8);
      StringBuilder word = new StringBuilder();
      for (int i = 0; i < length; i++) {
        word.append(letters.charAt(random.nextInt(letters.length())));
      }
      words.add(word.toString());
    }
    return words.toArray(String[]::new);
  }

  /** A Zipf-like draw: index ~ size^u, so low indexes are frequent. */
  private static String word(Random random, String[] vocabulary) {
    int index = (int) Math.floor(Math.pow(vocabulary.length, random.nextDouble())) - 1;
    return vocabulary[Math.max(0, Math.min(vocabulary.length - 1, index))];
  }

  private static String paragraphs(Random random, String[] vocabulary, String hanzi, int count) {
    StringBuilder out = new StringBuilder();
    for (int p = 0; p < count; p++) {
      if (p > 0) {
        out.append("\n\n");
      }
      if (random.nextInt(5) == 0) {
        for (int i = 0; i < 60; i++) {
          out.append(hanzi.charAt(random.nextInt(hanzi.length())));
          if (i % 12 == 11) {
            out.append('。');
          }
        }
      } else {
        out.append("User: ");
        for (int i = 0; i < 30; i++) {
          out.append(word(random, vocabulary)).append(i == 29 ? "." : " ");
        }
      }
    }
    return out.toString();
  }

  private static String query(Random random, String source, String[] vocabulary) {
    if (!source.startsWith("User: ")) {
      String flat = source.replace("。", "");
      int length = 4 + random.nextInt(5);
      int start = random.nextInt(Math.max(1, flat.length() - length));
      return flat.substring(start, Math.min(flat.length(), start + length));
    }
    String[] words = source.substring(6).replace(".", "").split(" ");
    int length = 3 + random.nextInt(4);
    int start = random.nextInt(Math.max(1, words.length - length));
    StringBuilder query = new StringBuilder(vocabulary[0]);
    for (int i = start; i < Math.min(words.length, start + length); i++) {
      query.append(' ').append(words[i]);
    }
    return query.toString();
  }

  private static String percentiles(double[] millis) {
    double[] sorted = millis.clone();
    Arrays.sort(sorted);
    return String.format(
        "%.2f / %.2f", sorted[sorted.length / 2], sorted[(int) Math.floor(sorted.length * 0.95)]);
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
