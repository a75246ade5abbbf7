package dev.memstack.builtin.bench;

import dev.memstack.builtin.store.files.FileStamp;
import dev.memstack.builtin.store.files.LuceneKeywordIndex;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Measures what erasing an owner costs the keyword index: {@code records} paragraphs (about 200
 * characters each) in daily notes of {@code owners} owners, ten paragraphs a note, committed; then
 * for {@code erasures} owners one after the other the removal of their notes and {@link
 * LuceneKeywordIndex#expungeDeletes()}. Prints one Markdown table row: median, min and max of the
 * removal and of the expunge, in ms.
 *
 * <p>Run: {@code ./mvnw -B -q -pl provider-builtin test-compile
 * org.codehaus.mojo:exec-maven-plugin:3.5.0:java -Dexec.classpathScope=test
 * -Dexec.mainClass=dev.memstack.builtin.bench.KeywordErasureBenchmark -Dexec.args="10000 100 5"}.
 */
public final class KeywordErasureBenchmark {

  private static final int PARAGRAPHS_PER_NOTE = 10;

  private KeywordErasureBenchmark() {}

  public static void main(String[] args) throws IOException {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int owners = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int erasures = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    int notesPerOwner = Math.max(1, records / owners / PARAGRAPHS_PER_NOTE);
    Path dir = Files.createTempDirectory("memstack-keyword-erasure");
    Random random = new Random(42);
    double[] removal = new double[erasures];
    double[] expunge = new double[erasures];
    try (LuceneKeywordIndex index = new LuceneKeywordIndex(dir, 200, Duration.ofSeconds(60))) {
      for (int note = 0; note < notesPerOwner; note++) {
        for (int o = 0; o < owners; o++) {
          StringBuilder content = new StringBuilder("# 2026-03-02\n");
          for (int p = 0; p < PARAGRAPHS_PER_NOTE; p++) {
            content.append('\n').append(paragraph(random)).append('\n');
          }
          index.replace(
              bucket(o), path(note), content.toString(), new FileStamp(1, 1), Instant.EPOCH, false);
        }
        index.refresh();
      }
      index.commit();
      for (int k = 0; k < erasures; k++) {
        long start = System.nanoTime();
        for (int note = 0; note < notesPerOwner; note++) {
          index.remove(bucket(k), path(note));
        }
        long removed = System.nanoTime();
        index.expungeDeletes();
        removal[k] = (removed - start) / 1e6;
        expunge[k] = (System.nanoTime() - removed) / 1e6;
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    System.out.printf(
        "| %d | %d | %s | %s |%n", records, owners, summary(removal), summary(expunge));
  }

  private static Bucket bucket(int owner) {
    return Bucket.personal(AgentId.of("a1"), OwnerKey.of("api:owner-" + owner));
  }

  private static WorkspacePath path(int note) {
    return WorkspacePath.of(
        String.format("memory/2026-%02d-%02d.md", 1 + note / 28, 1 + note % 28));
  }

  private static String summary(double[] millis) {
    double[] sorted = millis.clone();
    Arrays.sort(sorted);
    return String.format(
        "%.1f (%.1f-%.1f)", sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]);
  }

  private static String paragraph(Random random) {
    StringBuilder text = new StringBuilder("User: ");
    while (text.length() < 200) {
      text.append(Long.toString(random.nextLong() & Long.MAX_VALUE, 36), 0, 6).append(' ');
    }
    return text.toString().strip();
  }
}
