package dev.memstack.host.model;

import dev.memstack.spi.Embedder;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A benchmark's baseline, not part of the host: embeds a file of passages with the host's default
 * model and settings alone, in calls of {@value #CALL} texts, and prints how fast, so that the
 * ingest benchmark can set its delivery rates beside what the model alone allows on the same cores.
 * Run from the distribution with Spring Boot's properties launcher ({@code scripts/ingest-bench.sh}
 * does): {@code java -cp memstack.jar -Dloader.main=dev.memstack.host.model.ModelAloneRate
 * org.springframework.boot.loader.launch.PropertiesLauncher <texts file> <turns>}. The file holds
 * one passage a line, a newline inside a passage written as the two characters {@code \n}.
 */
public final class ModelAloneRate {

  /** Texts per embedding call, about what a provider hands over for one delivery. */
  static final int CALL = 32;

  private ModelAloneRate() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: ModelAloneRate <texts file> <turns>");
      System.exit(2);
    }
    List<String> texts = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
      texts.add(line.replace("\\n", "\n"));
    }
    int turns = Integer.parseInt(args[1]);
    try (OnnxEmbedder embedder =
        new OnnxEmbedder(BundledModel.E5_SMALL_V2, ModelProperties.Onnx.defaults())) {
      embedder.embed(List.of("warm up"), Embedder.Kind.PASSAGE);
      double cpuBefore = cpuSeconds();
      long start = System.nanoTime();
      for (int from = 0; from < texts.size(); from += CALL) {
        embedder.embed(
            texts.subList(from, Math.min(texts.size(), from + CALL)), Embedder.Kind.PASSAGE);
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      double cpu = cpuSeconds() - cpuBefore;
      System.out.printf(
          Locale.ROOT,
          "model-alone rate: %.1f turns/s (%d passages in %.1f s, %.1f passages/s, %.2f ms CPU a"
              + " passage, %.1f ms CPU a turn; %d cores)%n",
          turns / seconds,
          texts.size(),
          seconds,
          texts.size() / seconds,
          cpu * 1000 / texts.size(),
          cpu * 1000 / turns,
          Runtime.getRuntime().availableProcessors());
    }
  }

  /** The CPU time of this process (every thread, the model's native ones included). */
  private static double cpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime()
        / 1e9;
  }
}
