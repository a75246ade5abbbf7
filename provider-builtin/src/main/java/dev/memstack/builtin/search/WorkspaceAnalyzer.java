package dev.memstack.builtin.search;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.apache.lucene.analysis.cjk.CJKWidthFilter;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;

/**
 * Tokens for workspace search: Unicode word boundaries ({@link StandardTokenizer}), full-width
 * forms folded, lower case, accents folded, and runs of Chinese, Japanese and Korean characters
 * split into overlapping two-character windows ({@link CJKBigramFilter}), as the seeds split CJK
 * text, so a two-character query finds a longer phrase. Latin words are kept whole (no stemming),
 * so names and codes match exactly.
 */
public final class WorkspaceAnalyzer extends Analyzer {

  /**
   * Changes whenever the tokens or the index fields change; an index of another version is rebuilt.
   */
  public static final String VERSION = "workspace-index-4";

  @Override
  protected TokenStreamComponents createComponents(String fieldName) {
    StandardTokenizer source = new StandardTokenizer();
    TokenStream stream = new CJKWidthFilter(source);
    stream = new LowerCaseFilter(stream);
    stream = new ASCIIFoldingFilter(stream);
    stream = new CJKBigramFilter(stream);
    return new TokenStreamComponents(source, stream);
  }

  @Override
  protected TokenStream normalize(String fieldName, TokenStream in) {
    return new ASCIIFoldingFilter(new LowerCaseFilter(new CJKWidthFilter(in)));
  }
}
