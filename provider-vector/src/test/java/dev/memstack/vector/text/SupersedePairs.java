package dev.memstack.vector.text;

import dev.memstack.vector.text.Supersession.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * The labelled pairs of {@code supersede-pairs.tsv} (label, older, newer) and a confusion count of
 * a judge over them, per language (zh when a text holds Han characters, else en) and label.
 */
public final class SupersedePairs {

  /** One labelled pair. */
  public record Pair(Verdict label, String older, String newer) {
    public String language() {
      return (older + newer).codePoints().anyMatch(Statement::isHan) ? "zh" : "en";
    }
  }

  /** A misjudged pair. */
  public record Miss(Pair pair, Verdict got) {}

  private SupersedePairs() {}

  /** The pairs of the bundled fixture. */
  public static List<Pair> load() {
    try (InputStream in = SupersedePairs.class.getResourceAsStream("/supersede-pairs.tsv")) {
      if (in == null) {
        throw new IllegalStateException("supersede-pairs.tsv is not on the class path");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<Pair> parse(String tsv) {
    List<Pair> pairs = new ArrayList<>();
    for (String line : tsv.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      String[] cells = line.split("\t");
      if (cells.length != 3) {
        throw new IllegalArgumentException("not label<TAB>older<TAB>newer: " + line);
      }
      pairs.add(
          new Pair(Verdict.valueOf(cells[0].strip().toUpperCase(Locale.ROOT)), cells[1], cells[2]));
    }
    return pairs;
  }

  /** Judges every pair and counts. */
  public static Result run(List<Pair> pairs, BiFunction<String, String, Verdict> judge) {
    Result result = new Result();
    for (Pair pair : pairs) {
      Verdict got = judge.apply(pair.older(), pair.newer());
      result.count(pair, got);
    }
    return result;
  }

  /** Confusion counts: language → label → verdict → count, and the misses. */
  public static final class Result {
    final Map<String, Map<Verdict, Map<Verdict, Integer>>> counts = new TreeMap<>();
    public final List<Miss> misses = new ArrayList<>();
    public int total;

    public void count(Pair pair, Verdict got) {
      total++;
      counts
          .computeIfAbsent(pair.language(), k -> new EnumMap<>(Verdict.class))
          .computeIfAbsent(pair.label(), k -> new EnumMap<>(Verdict.class))
          .merge(got, 1, Integer::sum);
      if (got != pair.label()) {
        misses.add(new Miss(pair, got));
      }
    }

    public double errorRate() {
      return total == 0 ? 0 : (double) misses.size() / total;
    }

    /** A table: per language and label the pairs, each verdict's count, errors and error rate. */
    public String report() {
      StringBuilder out = new StringBuilder();
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
      int[] all = new int[2];
      counts.forEach(
          (language, byLabel) -> {
            int[] lang = new int[2];
            byLabel.forEach(
                (label, byVerdict) -> {
                  int pairs = byVerdict.values().stream().mapToInt(Integer::intValue).sum();
                  int errors = pairs - byVerdict.getOrDefault(label, 0);
                  line(
                      out,
                      language,
                      label.name().toLowerCase(Locale.ROOT),
                      pairs,
                      errors,
                      byVerdict);
                  lang[0] += pairs;
                  lang[1] += errors;
                });
            line(out, language, "all", lang[0], lang[1], null);
            all[0] += lang[0];
            all[1] += lang[1];
          });
      line(out, "all", "all", all[0], all[1], null);
      for (Miss miss : misses) {
        out.append(
            String.format(
                Locale.ROOT,
                "miss: %s judged %s: \"%s\" -> \"%s\"%n",
                miss.pair().label(),
                miss.got(),
                miss.pair().older(),
                miss.pair().newer()));
      }
      return out.toString();
    }

    private static void line(
        StringBuilder out,
        String language,
        String label,
        int pairs,
        int errors,
        Map<Verdict, Integer> byVerdict) {
      out.append(
          String.format(
              Locale.ROOT,
              "%-4s %-10s %5d %9s %6s %9s %6d %5.1f%%%n",
              language,
              label,
              pairs,
              byVerdict == null ? "" : byVerdict.getOrDefault(Verdict.DUPLICATE, 0),
              byVerdict == null ? "" : byVerdict.getOrDefault(Verdict.UPDATE, 0),
              byVerdict == null ? "" : byVerdict.getOrDefault(Verdict.UNRELATED, 0),
              errors,
              pairs == 0 ? 0 : 100.0 * errors / pairs));
    }
  }
}
