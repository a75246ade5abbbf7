package dev.memstack.host.model;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * A benchmark's baseline, not part of the host: how long the host's default model takes to embed
 * one query on its own, the first thing every context call waits for. Embeds each line of a file as
 * a query ({@code embedQuery}, one text a call, as a context call does), after a warm-up of {@code
 * warm-up} calls, {@code rounds} times over the file, and prints the latency percentiles of the
 * calls in milliseconds. Run from the distribution with Spring Boot's properties launcher ({@code
 * bench/realtalk/context-bench.sh} does): {@code java -cp memstack.jar
 * -Dloader.main=dev.memstack.host.model.QueryEmbeddingLatency
 * org.springframework.boot.loader.launch.PropertiesLauncher <queries file> [rounds] [warm-up]}.
 */
public final class QueryEmbeddingLatency {

  private QueryEmbeddingLatency() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 1 || args.length > 3) {
      System.err.println("usage: QueryEmbeddingLatency <queries file> [rounds] [warm-up]");
      System.exit(2);
    }
    List<String> queries = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        queries.add(line);
      }
    }
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    int warmUp = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    try (OnnxEmbedder embedder =
        new OnnxEmbedder(BundledModel.E5_SMALL_V2, ModelProperties.Onnx.defaults())) {
      for (int i = 0; i < warmUp; i++) {
        embedder.embedQuery(queries.get(i % queries.size()));
      }
      List<Double> millis = new ArrayList<>(queries.size() * rounds);
      for (int round = 0; round < rounds; round++) {
        for (String query : queries) {
          long start = System.nanoTime();
          embedder.embedQuery(query);
          millis.add((System.nanoTime() - start) / 1e6);
        }
      }
      Collections.sort(millis);
      System.out.printf(
          Locale.ROOT,
          "query embedding alone: %d calls, p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, mean %.2f ms%n",
          millis.size(),
          percentile(millis, 50),
          percentile(millis, 95),
          percentile(millis, 99),
          millis.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN));
    }
  }

  /** The {@code p}-th percentile of sorted values, interpolated between the two nearest ranks. */
  static double percentile(List<Double> sorted, double p) {
    double rank = (sorted.size() - 1) * p / 100;
    int low = (int) rank;
    int high = Math.min(low + 1, sorted.size() - 1);
    return sorted.get(low) + (sorted.get(high) - sorted.get(low)) * (rank - low);
  }
}
