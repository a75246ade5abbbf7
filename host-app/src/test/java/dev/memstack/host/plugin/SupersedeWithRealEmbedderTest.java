package dev.memstack.host.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.model.BundledModel;
import dev.memstack.host.model.ModelProperties;
import dev.memstack.host.model.OnnxEmbedder;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.MemoryProviderFactory;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ToolCall;
import dev.memstack.tck.TestProviderContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pf4j.PluginManager;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The whole {@code remember} path with the real default embedder: the vector plugin zip loaded by
 * PF4J, the bundled E5-small-v2 model in-process, and every labelled pair of {@code
 * provider-vector/src/test/resources/supersede-pairs.tsv} sent as two {@code remember} calls of a
 * fresh owner (so the older text is the only neighbour). The answer is read as the verdict: {@code
 * stored:false} a duplicate, {@code supersedes} an update, otherwise unrelated. Prints the
 * confusion counts per language and label beside the E5 cosine of each missed pair, and the same
 * counts for the embedder alone (today's rule before superseding: a duplicate at cosine ≥ 0.95,
 * else stored). {@code -Dmemstack.test.model=bge-small-zh-v1.5} measures another bundled model.
 */
@DisplayName("remember with the real embedder over the labelled supersede pairs")
class SupersedeWithRealEmbedderTest {

  private static final AgentId AGENT = AgentId.of("assistant");
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final double DEDUPE = 0.95;

  @TempDir static Path temp;

  private static PluginManager manager;
  private static OnnxEmbedder embedder;
  private static MemoryProvider provider;

  record Pair(String label, String older, String newer) {
    String language() {
      return (older + newer)
              .codePoints()
              .anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN)
          ? "zh"
          : "en";
    }
  }

  @BeforeAll
  static void start() throws IOException {
    Path plugins = Files.createDirectories(temp.resolve("plugins"));
    Path zip = PluginZips.zip("vector");
    Files.copy(zip, plugins.resolve(zip.getFileName()));
    manager = PluginConfiguration.pluginManager(plugins, "0.1.0");
    manager.loadPlugins();
    manager.startPlugins();
    MemoryProviderFactory factory =
        manager.getExtensions(MemoryProviderFactory.class).stream()
            .filter(f -> f.type().equals("vector"))
            .findFirst()
            .orElseThrow();
    String model = System.getProperty("memstack.test.model", BundledModel.E5_SMALL_V2.id());
    BundledModel bundled =
        java.util.Arrays.stream(BundledModel.values())
            .filter(m -> m.id().equals(model))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no bundled model " + model));
    embedder = new OnnxEmbedder(bundled, ModelProperties.Onnx.defaults());
    ClassLoader previous = Thread.currentThread().getContextClassLoader();
    Thread.currentThread().setContextClassLoader(factory.getClass().getClassLoader());
    try {
      provider =
          factory.create(
              TestProviderContext.builder()
                  .instanceId("vector")
                  .config(Map.of())
                  .dataDir(temp.resolve("data"))
                  .embedder(embedder)
                  .build());
    } finally {
      Thread.currentThread().setContextClassLoader(previous);
    }
  }

  @AfterAll
  static void stop() {
    if (provider != null) {
      provider.close();
    }
    if (embedder != null) {
      embedder.close();
    }
    if (manager != null) {
      PluginCatalog.stopAndUnload(manager);
    }
  }

  @Test
  @DisplayName("supersedes the examples, and counts the verdicts of every pair")
  void measuresThePairs() throws IOException {
    List<Pair> pairs = pairs();
    Map<String, int[]> whole = new TreeMap<>();
    Map<String, int[]> embedderOnly = new TreeMap<>();
    List<String> misses = new ArrayList<>();
    int owner = 0;
    int errors = 0;
    for (Pair pair : pairs) {
      OwnerKey key = OwnerKey.of("user:pair-" + owner++);
      remember(key, pair.older());
      JsonNode answer = remember(key, pair.newer());
      String got =
          !answer.get("stored").asBoolean()
              ? "duplicate"
              : answer.has("supersedes") ? "update" : "unrelated";
      double cosine = cosine(pair.older(), pair.newer());
      String before = cosine >= DEDUPE ? "duplicate" : "unrelated";
      count(whole, pair, got);
      count(embedderOnly, pair, before);
      if (!got.equals(pair.label())) {
        errors++;
        misses.add(
            String.format(
                Locale.ROOT,
                "miss: %s judged %s (cosine %.3f): \"%s\" -> \"%s\"",
                pair.label(),
                got,
                cosine,
                pair.older(),
                pair.newer()));
      }
    }
    StringBuilder report = new StringBuilder();
    report
        .append("remember with ")
        .append(embedder.modelId())
        .append(" (embedder + Supersession):\n");
    table(report, whole);
    misses.forEach(m -> report.append(m).append('\n'));
    report.append("embedder alone, duplicate at cosine >= ").append(DEDUPE).append(":\n");
    table(report, embedderOnly);
    System.out.print(report);

    if (embedder.modelId().equals(BundledModel.E5_SMALL_V2.id())) {
      assertThat((double) errors / pairs.size()).as(report.toString()).isLessThanOrEqualTo(0.05);
    }
    for (String[] example :
        new String[][] {
          {"I am allergic to penicillin", "I am not allergic to penicillin"},
          {"My locker code is 1111", "My locker code is 2222"},
          {"我对青霉素过敏", "我对青霉素不过敏"},
          {"我的储物柜密码是1111", "我的储物柜密码是2222"}
        }) {
      OwnerKey key = OwnerKey.of("user:example-" + owner++);
      String old = remember(key, example[0]).get("id").asString();
      JsonNode answer = remember(key, example[1]);
      assertThat(answer.get("stored").asBoolean()).as(example[1]).isTrue();
      assertThat(answer.get("supersedes").get(0).asString()).as(example[1]).isEqualTo(old);
    }
  }

  private static JsonNode remember(OwnerKey owner, String text) {
    String args = JSON.createObjectNode().put("text", text).toString();
    return JSON.readTree(provider.callTool(new ToolCall(AGENT, owner, "remember", args)));
  }

  /** Cosine of the two texts as the provider embeds them (passages, dated alike). */
  private static double cosine(String older, String newer) {
    List<float[]> vectors =
        embedder.embed(
            List.of("[2026-03-02] " + older, "[2026-03-02] " + newer), Embedder.Kind.PASSAGE);
    double dot = 0;
    double na = 0;
    double nb = 0;
    for (int i = 0; i < vectors.get(0).length; i++) {
      dot += vectors.get(0)[i] * vectors.get(1)[i];
      na += vectors.get(0)[i] * vectors.get(0)[i];
      nb += vectors.get(1)[i] * vectors.get(1)[i];
    }
    return dot / Math.sqrt(na * nb);
  }

  private static final List<String> LABELS = List.of("duplicate", "update", "unrelated");

  private static void count(Map<String, int[]> counts, Pair pair, String got) {
    int[] row = counts.computeIfAbsent(pair.language() + " " + pair.label(), k -> new int[3]);
    row[LABELS.indexOf(got)]++;
  }

  private static void table(StringBuilder out, Map<String, int[]> counts) {
    out.append(
        String.format(
            Locale.ROOT,
            "%-4s %-10s %5s %9s %6s %9s %6s %6s%n",
            "lang",
            "label",
            "pairs",
            "duplicate",
            "update",
            "unrelated",
            "errors",
            "rate"));
    Map<String, int[]> byLanguage = new TreeMap<>();
    counts.forEach(
        (key, row) -> {
          String[] parts = key.split(" ");
          int pairs = row[0] + row[1] + row[2];
          int errors = pairs - row[LABELS.indexOf(parts[1])];
          out.append(
              String.format(
                  Locale.ROOT,
                  "%-4s %-10s %5d %9d %6d %9d %6d %5.1f%%%n",
                  parts[0],
                  parts[1],
                  pairs,
                  row[0],
                  row[1],
                  row[2],
                  errors,
                  100.0 * errors / pairs));
          int[] total = byLanguage.computeIfAbsent(parts[0], k -> new int[2]);
          total[0] += pairs;
          total[1] += errors;
          int[] all = byLanguage.computeIfAbsent("~all", k -> new int[2]);
          all[0] += pairs;
          all[1] += errors;
        });
    byLanguage.forEach(
        (language, total) ->
            out.append(
                String.format(
                    Locale.ROOT,
                    "%-4s %-10s %5d %9s %6s %9s %6d %5.1f%%%n",
                    language.replace("~", ""),
                    "all",
                    total[0],
                    "",
                    "",
                    "",
                    total[1],
                    100.0 * total[1] / total[0])));
  }

  private static List<Pair> pairs() throws IOException {
    Path tsv = Path.of("..", "provider-vector", "src", "test", "resources", "supersede-pairs.tsv");
    List<Pair> pairs = new ArrayList<>();
    for (String line : Files.readAllLines(tsv, StandardCharsets.UTF_8)) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] cells = line.split("\t");
      pairs.add(new Pair(cells[0].strip(), cells[1], cells[2]));
    }
    return pairs;
  }
}
