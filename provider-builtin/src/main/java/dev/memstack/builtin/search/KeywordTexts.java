package dev.memstack.builtin.search;

import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.support.LuceneTerms;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;

/**
 * What both keyword indexes do alike with text: a query's terms as {@link WorkspaceAnalyzer} makes
 * them, how many are scored, and a hit's line and snippet at its first matching term.
 */
public final class KeywordTexts {

  /** The field name the analyzer is asked for (the Lucene index's text field). */
  public static final String FIELD = "text";

  /** Most distinct terms taken from a query. */
  public static final int MAX_QUERY_TERMS = 256;

  /** Most (rarest) query terms scored. */
  public static final int MAX_SCORED_TERMS = 16;

  private KeywordTexts() {}

  /**
   * The distinct terms of {@code text} as {@code analyzer} makes them, at most {@value
   * #MAX_QUERY_TERMS}.
   */
  public static Set<String> terms(Analyzer analyzer, String text) {
    if (text == null || text.isBlank()) {
      return new LinkedHashSet<>();
    }
    return LuceneTerms.distinct(analyzer, FIELD, text, MAX_QUERY_TERMS);
  }

  /**
   * A hit on paragraph {@code text} (which starts at line {@code startLine}): the line and snippet
   * of the first token that is one of {@code queryTerms}.
   */
  public static KeywordHit hit(
      Analyzer analyzer,
      int snippetChars,
      Bucket bucket,
      WorkspacePath path,
      int startLine,
      String text,
      double score,
      Instant updateTime,
      Set<String> queryTerms)
      throws IOException {
    int matchStart = 0;
    int matchEnd = 0;
    // no terms (a dense hit, or one past the snippets asked for): the paragraph's start
    if (!queryTerms.isEmpty()) {
      try (TokenStream stream = analyzer.tokenStream(FIELD, text)) {
        CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
        OffsetAttribute offset = stream.addAttribute(OffsetAttribute.class);
        stream.reset();
        while (stream.incrementToken()) {
          if (queryTerms.contains(term.toString())) {
            matchStart = offset.startOffset();
            matchEnd = offset.endOffset();
            break;
          }
        }
        stream.end();
      }
    }
    int line = startLine;
    for (int i = 0; i < matchStart; i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return new KeywordHit(
        bucket,
        path,
        line,
        text,
        snippet(text, matchStart, matchEnd, snippetChars),
        score,
        updateTime,
        null);
  }

  /** A window of {@code width} characters of {@code text} around the match, on one line. */
  public static String snippet(String text, int matchStart, int matchEnd, int width) {
    String flat = text.replace('\n', ' ');
    if (flat.length() <= width) {
      return flat;
    }
    int matchLength = Math.max(0, matchEnd - matchStart);
    int start = Math.max(0, matchStart - Math.max(0, (width - matchLength) / 2));
    start = Math.min(start, flat.length() - width);
    int end = start + width;
    if (start > 0 && Character.isLowSurrogate(flat.charAt(start))) {
      start++;
    }
    if (end < flat.length() && Character.isHighSurrogate(flat.charAt(end - 1))) {
      end--;
    }
    return (start > 0 ? "…" : "") + flat.substring(start, end) + (end < flat.length() ? "…" : "");
  }
}
