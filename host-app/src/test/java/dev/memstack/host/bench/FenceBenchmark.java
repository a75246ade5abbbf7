package dev.memstack.host.bench;

import dev.memstack.host.stack.MemoryContextFence;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.IntSupplier;

/**
 * What the {@code <memory-context>} fence costs on a typical context of about 2 KB: {@link
 * MemoryContextFence#stripTags} over the recalled lines one by one (what the merge does per item),
 * {@link MemoryContextFence#stripBlocks} over a user message that carries the whole fenced block
 * (what a turn goes through), for English and for Chinese text. Plain loop, median of rounds,
 * microseconds per context. Run with (figures in {@code bench/RESULTS.md}):
 *
 * <pre>
 * ./mvnw -B -q -pl host-app test-compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
 *     -Dexec.classpathScope=test -Dexec.mainClass=dev.memstack.host.bench.FenceBenchmark
 * </pre>
 */
public final class FenceBenchmark {

  private static final String[] ENGLISH =
      ("I moved to Lisbon last spring and my sister visits in June; we booked the coffee tasting"
              + " and the piano recital, the invoice for the garden is due Friday, remember that"
              + " the doctor said no more than two espressos a day and the marathon is in October")
          .split(" ");
  private static final String[] CHINESE =
      ("我去年春天搬到了里斯本，妹妹六月来看我；我们订了咖啡品鉴和钢琴音乐会。花园的发票周五到期，" + "记住医生说每天不要超过两杯浓缩咖啡，马拉松在十月。").split("");

  private FenceBenchmark() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
    int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    for (String language : List.of("English", "Chinese")) {
      List<String> lines = lines(language.equals("English") ? ENGLISH : CHINESE, 2048);
      String block = "<memory-context>\n" + String.join("\n", lines) + "\n</memory-context>\n";
      String message = block + "What should I drink tomorrow?";
      int chars = String.join("\n", lines).length();
      double tags =
          median(
              rounds,
              iterations,
              () -> {
                int total = 0;
                for (String line : lines) {
                  total += MemoryContextFence.stripTags(line).length();
                }
                return total;
              });
      double blocks =
          median(rounds, iterations, () -> MemoryContextFence.stripBlocks(message).length());
      double contains =
          median(
              rounds,
              iterations,
              () -> MemoryContextFence.containsTag(String.join("\n", lines)) ? 1 : 0);
      System.out.printf(
          "%s: %d lines, %d chars: stripTags over the lines %.1f us, stripBlocks of the message"
              + " %.1f us, containsTag %.1f us%n",
          language, lines.size(), chars, tags, blocks, contains);
    }
  }

  private static List<String> lines(String[] words, int chars) {
    Random random = new Random(42);
    List<String> lines = new ArrayList<>();
    int total = 0;
    boolean spaced = words[0].length() > 1;
    while (total < chars) {
      StringBuilder line = new StringBuilder("- [2026-03-02] (vector, personal) ");
      int length = 20 + random.nextInt(20);
      for (int i = 0; i < length; i++) {
        line.append(words[random.nextInt(words.length)]);
        if (spaced) {
          line.append(' ');
        }
      }
      lines.add(line.toString().strip());
      total += line.length() + 1;
    }
    return lines;
  }

  /** Microseconds per call of {@code body}, the median of {@code rounds} timed loops. */
  private static double median(int rounds, int iterations, IntSupplier body) {
    long sink = 0;
    for (int i = 0; i < iterations; i++) {
      sink += body.getAsInt();
    }
    double[] micros = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      long start = System.nanoTime();
      for (int i = 0; i < iterations; i++) {
        sink += body.getAsInt();
      }
      micros[r] = (System.nanoTime() - start) / 1000.0 / iterations;
    }
    if (sink == 42) {
      System.out.println();
    }
    Arrays.sort(micros);
    return micros[rounds / 2];
  }
}
