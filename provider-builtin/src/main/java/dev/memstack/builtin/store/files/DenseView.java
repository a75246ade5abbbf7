package dev.memstack.builtin.store.files;

import dev.memstack.builtin.search.Paragraphs;
import dev.memstack.spi.Embedder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The dense view of the keyword index: each paragraph embedded by the host's model, so that a
 * paragraph that says the same thing in other words is found too. What is embedded is the
 * paragraph's prose ({@link #text}): Markdown heading lines (a daily-note entry's {@code ### 22:36
 * · api · conversation …}) and bold markers are left out, since they are the same in every entry
 * and would pull every vector towards them. Vectors of paragraphs whose prose is unchanged are
 * taken over from the file's previous documents, so appending an entry to a daily note embeds only
 * that entry. Thread-safe.
 */
final class DenseView {

  private static final Pattern BOLD = Pattern.compile("\\*\\*");

  private final Embedder embedder;

  DenseView(Embedder embedder) {
    this.embedder = Objects.requireNonNull(embedder, "embedder");
  }

  /** The id written with the index, so that another model's vectors are never mixed in. */
  String modelId() {
    return embedder.modelId();
  }

  /**
   * What is embedded of a paragraph: its lines without Markdown heading lines (unless nothing else
   * is left) and without bold markers, stripped; empty when nothing is worth embedding (a heading
   * alone).
   */
  static String text(String paragraph) {
    StringBuilder prose = new StringBuilder();
    for (String line : paragraph.split("\n")) {
      String stripped = line.strip();
      if (stripped.isEmpty() || stripped.startsWith("#")) {
        continue;
      }
      if (!prose.isEmpty()) {
        prose.append('\n');
      }
      prose.append(BOLD.matcher(stripped).replaceAll(""));
    }
    return prose.toString().strip();
  }

  /**
   * One vector per paragraph, {@code null} for a paragraph with nothing to embed: taken from {@code
   * previous} (vectors by {@link #text}) where the prose is unchanged, the rest embedded in one
   * call.
   */
  List<float[]> vectors(List<Paragraphs.Chunk> chunks, Map<String, float[]> previous) {
    List<float[]> vectors = new ArrayList<>(chunks.size());
    Set<String> missing = new LinkedHashSet<>();
    Map<String, float[]> known = new HashMap<>(previous);
    for (Paragraphs.Chunk chunk : chunks) {
      String prose = text(chunk.text());
      if (!prose.isEmpty() && !known.containsKey(prose)) {
        missing.add(prose);
      }
    }
    if (!missing.isEmpty()) {
      List<String> texts = List.copyOf(missing);
      List<float[]> embedded = embedder.embed(texts, Embedder.Kind.PASSAGE);
      if (embedded.size() != missing.size()) {
        throw new IllegalStateException(
            "embedder returned " + embedded.size() + " vectors for " + missing.size() + " texts");
      }
      for (int i = 0; i < texts.size(); i++) {
        known.put(texts.get(i), embedded.get(i));
      }
    }
    for (Paragraphs.Chunk chunk : chunks) {
      String prose = text(chunk.text());
      vectors.add(prose.isEmpty() ? null : known.get(prose));
    }
    return vectors;
  }

  /**
   * The vectors of the paragraphs of {@code markdown} (chunked as the index chunks a file), by
   * embedded text; those not in {@code known} embedded in one call.
   */
  Map<String, float[]> embedAll(List<String> markdown, Map<String, float[]> known) {
    List<Paragraphs.Chunk> chunks = new ArrayList<>();
    for (String text : markdown) {
      chunks.addAll(Paragraphs.chunks(text));
    }
    List<float[]> embedded = vectors(chunks, known);
    Map<String, float[]> vectors = new HashMap<>();
    for (int i = 0; i < chunks.size(); i++) {
      if (embedded.get(i) != null) {
        vectors.put(text(chunks.get(i).text()), embedded.get(i));
      }
    }
    return vectors;
  }

  /** The query's vector. */
  float[] query(String query) {
    return embedder.embedQuery(query);
  }
}
