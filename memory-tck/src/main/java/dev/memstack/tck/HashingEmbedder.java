package dev.memstack.tck;

import dev.memstack.spi.Embedder;
import dev.memstack.support.Scripts;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A deterministic {@link Embedder} for tests: no model, no native code, identical vectors on every
 * machine. A text is split into lower-cased word tokens (runs of Unicode letters and digits; Han,
 * Hiragana, Katakana and Hangul runs as overlapping character bigrams) and each token is hashed
 * (FNV-1a, 64 bit) into one of {@value #DIMENSION} dimensions with a hashed sign; the sum is
 * L2-normalised. Texts that share words are therefore close in cosine similarity, and texts with no
 * word in common are near-orthogonal. It knows no synonyms or word forms, so it is good enough for
 * exact-word recall in the compatibility kit, not for measuring recall quality. A text with no
 * token maps to a fixed unit vector, so cosine similarity stays defined. Queries and passages are
 * embedded alike. Thread-safe and stateless.
 */
public final class HashingEmbedder implements Embedder {

  /** Length of every vector. */
  public static final int DIMENSION = 384;

  /** The {@link #modelId()}. */
  public static final String MODEL_ID = "hashing-384";

  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  @Override
  public String modelId() {
    return MODEL_ID;
  }

  @Override
  public int dimension() {
    return DIMENSION;
  }

  @Override
  public List<float[]> embed(List<String> texts, Kind kind) {
    Objects.requireNonNull(texts, "texts");
    Objects.requireNonNull(kind, "kind");
    List<float[]> vectors = new ArrayList<>(texts.size());
    for (String text : texts) {
      vectors.add(embedOne(Objects.requireNonNull(text, "texts must not contain null")));
    }
    return vectors;
  }

  /**
   * The tokens {@link #embed} hashes: lower-cased runs of letters and digits, with CJK runs cut
   * into overlapping bigrams (a lone CJK character is its own token). Useful to reference providers
   * that want the same notion of a word.
   */
  public static List<String> tokens(String text) {
    Objects.requireNonNull(text, "text");
    List<String> tokens = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    List<Integer> cjk = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (Scripts.isCjk(cp)) {
        flushWord(word, tokens);
        cjk.add(cp);
      } else if (Character.isLetterOrDigit(cp)) {
        flushCjk(cjk, tokens);
        word.appendCodePoint(cp);
      } else {
        flushWord(word, tokens);
        flushCjk(cjk, tokens);
      }
    }
    flushWord(word, tokens);
    flushCjk(cjk, tokens);
    return tokens;
  }

  private static float[] embedOne(String text) {
    float[] vector = new float[DIMENSION];
    List<String> tokens = tokens(text);
    if (tokens.isEmpty()) {
      vector[0] = 1f;
      return vector;
    }
    for (String token : tokens) {
      long hash = fnv1a(token);
      int index = (int) Long.remainderUnsigned(hash, DIMENSION);
      vector[index] += (hash >>> 63) == 0 ? 1f : -1f;
    }
    double norm = 0;
    for (float v : vector) {
      norm += v * v;
    }
    if (norm == 0) {
      // Tokens whose signed hashes cancel out exactly; keep the vector a unit vector.
      vector[0] = 1f;
      return vector;
    }
    float scale = (float) (1.0 / Math.sqrt(norm));
    for (int d = 0; d < DIMENSION; d++) {
      vector[d] *= scale;
    }
    return vector;
  }

  private static long fnv1a(String token) {
    long hash = FNV_OFFSET;
    for (byte b : token.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= FNV_PRIME;
    }
    // FNV's low bits mix poorly for short inputs; a final avalanche spreads them.
    hash ^= hash >>> 33;
    hash *= 0xff51afd7ed558ccdL;
    hash ^= hash >>> 33;
    return hash;
  }

  private static void flushWord(StringBuilder word, List<String> tokens) {
    if (word.length() > 0) {
      tokens.add(word.toString().toLowerCase(Locale.ROOT));
      word.setLength(0);
    }
  }

  private static void flushCjk(List<Integer> run, List<String> tokens) {
    if (run.size() == 1) {
      tokens.add(new String(Character.toChars(run.get(0))));
    }
    for (int k = 0; k + 1 < run.size(); k++) {
      tokens.add(
          new StringBuilder()
              .appendCodePoint(run.get(k))
              .appendCodePoint(run.get(k + 1))
              .toString());
    }
    run.clear();
  }

  @Override
  public String toString() {
    return "HashingEmbedder[" + MODEL_ID + "]";
  }
}
