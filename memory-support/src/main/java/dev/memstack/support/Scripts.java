package dev.memstack.support;

/** The Unicode scripts of code points, where text is split or counted by script. */
public final class Scripts {

  private Scripts() {}

  /**
   * Whether {@code codePoint} is of a CJK script (Han, Hiragana, Katakana or Hangul), where words
   * are not separated by spaces.
   */
  public static boolean isCjk(int codePoint) {
    Character.UnicodeScript script = Character.UnicodeScript.of(codePoint);
    return script == Character.UnicodeScript.HAN
        || script == Character.UnicodeScript.HIRAGANA
        || script == Character.UnicodeScript.KATAKANA
        || script == Character.UnicodeScript.HANGUL;
  }
}
