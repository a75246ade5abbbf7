package dev.memstack.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/** The terms a Lucene analyzer makes of a query. Needs Lucene on the plugin's class path. */
public final class LuceneTerms {

  private LuceneTerms() {}

  /**
   * The distinct terms of {@code text} as {@code analyzer} makes them for {@code field}, in order
   * of first appearance, at most {@code max}.
   *
   * @throws UncheckedIOException {@code cannot analyse the query} when the analyzer fails
   */
  public static Set<String> distinct(Analyzer analyzer, String field, String text, int max) {
    Set<String> terms = new LinkedHashSet<>();
    try (TokenStream stream = analyzer.tokenStream(field, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken() && terms.size() < max) {
        terms.add(term.toString());
      }
      stream.end();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot analyse the query", e);
    }
    return terms;
  }
}
