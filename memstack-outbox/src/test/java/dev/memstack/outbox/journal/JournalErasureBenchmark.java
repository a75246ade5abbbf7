package dev.memstack.outbox.journal;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Measures {@link FileJournal#expunge}, the part of an owner erasure that rewrites the journal
 * segments: {@code records} turns (200-character message and reply) of {@code owners} owners in
 * turn, every one still in the journal (as when a provider is down), then {@code erasures} owners
 * erased one after the other. Prints one Markdown table row.
 *
 * <p>Run: {@code ./mvnw -B -q -pl memstack-outbox test-compile
 * org.codehaus.mojo:exec-maven-plugin:3.5.0:java -Dexec.classpathScope=test
 * -Dexec.mainClass=dev.memstack.outbox.journal.JournalErasureBenchmark -Dexec.args="10000 100 5
 * 64"} (records, owners, erasures, segment size in MB).
 */
public final class JournalErasureBenchmark {

  private JournalErasureBenchmark() {}

  public static void main(String[] args) throws IOException {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int owners = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int erasures = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    long segmentMb = args.length > 3 ? Long.parseLong(args[3]) : 64;
    Path dir = Files.createTempDirectory("memstack-journal-erasure");
    Random random = new Random(42);
    try (FileJournal journal = FileJournal.open(dir, segmentMb << 20, true)) {
      for (int i = 0; i < records; i++) {
        Turn turn =
            new Turn(
                "t" + i,
                AgentId.of("a1"),
                OwnerKey.of("api:owner-" + (i % owners)),
                "c1",
                text(random),
                text(random),
                TriggerSource.API,
                Instant.parse("2026-03-02T10:00:00Z"));
        JournalRecord record =
            JournalRecord.turn(turn, Instant.now(), List.of("builtin", "vector"));
        journal.append(record.header(), record.encode());
      }
      journal.awaitDurable(journal.nextPosition() - 1);
      double[] millis = new double[erasures];
      int erased = 0;
      for (int k = 0; k < erasures; k++) {
        long start = System.nanoTime();
        erased += journal.expunge("api:owner-" + k, journal.nextPosition());
        millis[k] = (System.nanoTime() - start) / 1e6;
      }
      double[] sorted = millis.clone();
      Arrays.sort(sorted);
      System.out.printf(
          "| %d | %d | %d MB | %d | %.1f | %.1f | %.1f | %d |%n",
          records,
          owners,
          segmentMb,
          journal.segments(),
          sorted[sorted.length / 2],
          sorted[0],
          sorted[sorted.length - 1],
          erased / erasures);
    } finally {
      deleteRecursively(dir);
    }
  }

  private static String text(Random random) {
    List<String> words = new ArrayList<>();
    int length = 0;
    while (length < 200) {
      String word = Long.toString(random.nextLong() & Long.MAX_VALUE, 36).substring(0, 6);
      words.add(word);
      length += word.length() + 1;
    }
    return String.join(" ", words);
  }

  private static void deleteRecursively(java.nio.file.Path dir) throws java.io.IOException {
    try (var paths = java.nio.file.Files.walk(dir)) {
      for (java.nio.file.Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.delete(path);
      }
    }
  }
}
