package dev.memstack.host.model;

import com.sun.management.OperatingSystemMXBean;
import dev.memstack.host.testing.ModelArgs;
import dev.memstack.spi.Embedder.Kind;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Measures the in-process embedding models on this machine: load time, one query alone, and
 * passages embedded one by one (the default) or in padded batches. Not a test; run it with
 *
 * <pre>
 * ./mvnw -B -q -pl host-app test-compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
 *     -Dexec.classpathScope=test -Dexec.mainClass=dev.memstack.host.model.EmbeddingBenchmark
 * </pre>
 *
 * Optional arguments ({@code -Dexec.args="..."}): number of passages (default 256), rounds (default
 * 5), then model ids (default all four). Figures are medians over the rounds, in milliseconds per
 * text: wall time and, in brackets, CPU time of the whole process, which other load on the machine
 * disturbs less. The texts are synthetic chat utterances of 8-40 words.
 */
public final class EmbeddingBenchmark {

  private static final String[] WORDS =
      ("I we you my our the a dog greyhound cat adopted retired spring last week tomorrow bake"
              + " sourdough bread tax report quarterly Friday meeting moved project deadline sister"
              + " birthday party Berlin Paris flight booked coffee tea allergic peanuts prefers dark"
              + " mode editor vim running marathon knee hurts doctor appointment Tuesday budget"
              + " vacation Portugal beach daughter school piano lessons garden tomatoes")
          .split(" ");

  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** Milliseconds per text: wall-clock and process CPU. */
  private record Figure(double wall, double cpu) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%.1f (%.1f)", wall, cpu);
    }
  }

  /** onnxruntime threads per model run: {@code -Dthreads=N} (default 1, the host's default). */
  private static final int THREADS = Integer.getInteger("threads", 1);

  private EmbeddingBenchmark() {}

  public static void main(String[] args) {
    int passages = args.length > 0 ? Integer.parseInt(args[0]) : 256;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    List<BundledModel> models = ModelArgs.from(args, 2);
    List<String> texts = utterances(passages);
    System.out.printf(
        Locale.ROOT,
        "%d passages (%.0f chars on average), %d rounds, %d cores, onnxruntime threads %d,"
            + " load average %.2f%n",
        passages,
        texts.stream().mapToInt(String::length).average().orElse(0),
        rounds,
        Runtime.getRuntime().availableProcessors(),
        THREADS,
        OS.getSystemLoadAverage());
    System.out.println(
        "| model | load ms | query alone ms | passages 1 by 1, one caller ms/text (CPU) |"
            + " 1 by 1 on every core (default) ms/text (CPU) |"
            + " batch 8 ms/text (CPU) | batch 32 ms/text (CPU) |");
    System.out.println("|---|---|---|---|---|---|---|");
    for (BundledModel model : models) {
      measure(model, texts, rounds);
    }
  }

  private static void measure(BundledModel model, List<String> texts, int rounds) {
    double load;
    Figure query;
    Figure single;
    try (OnnxEmbedder embedder = new OnnxEmbedder(model, settings(1, 1))) {
      long start = System.nanoTime();
      embedder.load();
      load = (System.nanoTime() - start) / 1e6;
      embedder.embed(texts.subList(0, Math.min(32, texts.size())), Kind.PASSAGE);
      query = median(rounds * 20, () -> embedder.embedQuery("what kind of dog do I have?"), 1);
      single = median(rounds, () -> embedder.embed(texts, Kind.PASSAGE), texts.size());
    }
    Figure parallel = batched(model, texts, rounds, 1, 0);
    Figure batch8 = batched(model, texts, rounds, 8, 1);
    Figure batch32 = batched(model, texts, rounds, 32, 1);
    System.out.printf(
        Locale.ROOT,
        "| %s | %.0f | %.1f | %s | %s | %s | %s |%n",
        model.id(),
        load,
        query.wall(),
        single,
        parallel,
        batch8,
        batch32);
  }

  private static Figure batched(
      BundledModel model, List<String> texts, int rounds, int size, int parallelism) {
    try (OnnxEmbedder embedder = new OnnxEmbedder(model, settings(size, parallelism))) {
      embedder.embed(texts.subList(0, Math.min(64, texts.size())), Kind.PASSAGE);
      return median(rounds, () -> embedder.embed(texts, Kind.PASSAGE), texts.size());
    }
  }

  private static ModelProperties.Onnx settings(int batchSize, int parallelism) {
    return new ModelProperties.Onnx(batchSize, 512, THREADS, parallelism, true, false, "");
  }

  private static Figure median(int runs, Runnable body, int textsPerRun) {
    double[] wall = new double[runs];
    double[] cpu = new double[runs];
    for (int i = 0; i < runs; i++) {
      long start = System.nanoTime();
      long cpuStart = OS.getProcessCpuTime();
      body.run();
      wall[i] = (System.nanoTime() - start) / 1e6 / textsPerRun;
      cpu[i] = (OS.getProcessCpuTime() - cpuStart) / 1e6 / textsPerRun;
    }
    Arrays.sort(wall);
    Arrays.sort(cpu);
    return new Figure(wall[runs / 2], cpu[runs / 2]);
  }

  private static List<String> utterances(int count) {
    Random random = new Random(42);
    List<String> texts = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      StringBuilder text = new StringBuilder(i % 2 == 0 ? "user:" : "assistant:");
      int words = 8 + random.nextInt(33);
      for (int w = 0; w < words; w++) {
        text.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
      }
      texts.add(text.append('.').toString());
    }
    return texts;
  }
}
