package dev.memstack.vector.text;

import java.text.Normalizer;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether an assistant reply is only an acknowledgement ("Lovely!", "Noted.", "Got it", "好的", "收到",
 * an emoji) and so no memory of its own. The rule: remove punctuation, symbols and emoji, the
 * acknowledgement and courtesy vocabulary below and function words; a reply with fewer than {@value
 * #MIN_CONTENT_WORDS} content words left is filler. Content words are the remaining Latin words and
 * numbers, and for Chinese one word per two remaining characters (rounded up). So "How wonderful,
 * the bassoon!" (one content word) is filler; "I adopted a greyhound too!" is not. Stateless and
 * thread-safe.
 */
public final class ReplyFiller {

  /** A reply with fewer content words than this is filler. */
  public static final int MIN_CONTENT_WORDS = 2;

  /** Acknowledgement and courtesy words: not content in a reply. */
  static final Set<String> COURTESY_EN =
      Set.of(
          "ok",
          "okay",
          "okey",
          "k",
          "kk",
          "sure",
          "yes",
          "yeah",
          "yep",
          "yup",
          "no",
          "nope",
          "great",
          "lovely",
          "nice",
          "cool",
          "awesome",
          "wonderful",
          "perfect",
          "excellent",
          "fantastic",
          "amazing",
          "brilliant",
          "super",
          "good",
          "fine",
          "alright",
          "right",
          "thanks",
          "thank",
          "thx",
          "ty",
          "cheers",
          "noted",
          "note",
          "understood",
          "gotcha",
          "sounds",
          "remember",
          "keep",
          "mind",
          "course",
          "absolutely",
          "certainly",
          "definitely",
          "welcome",
          "glad",
          "happy",
          "help",
          "hear",
          "hello",
          "hi",
          "hey",
          "bye",
          "wow",
          "oh",
          "ah",
          "aha",
          "haha",
          "hah",
          "lol",
          "yay",
          "indeed",
          "exactly",
          "true",
          "agreed",
          "congrats",
          "congratulations",
          "interesting",
          "fun",
          "well",
          "done",
          "sorry",
          "enjoy",
          "hmm",
          "um",
          "uh",
          "anytime",
          "pleasure",
          "problem",
          "worries",
          "thing",
          "totally",
          "yum",
          "delicious",
          "adorable",
          "sweet",
          "cute",
          "neat",
          "fair",
          "enough",
          "let",
          "know",
          "see",
          "tell",
          "told",
          "make",
          "sense",
          "makes",
          "bet",
          "yummy",
          "bravo",
          "lucky",
          "like",
          "love",
          "wish",
          "hope",
          "best",
          "luck");

  private static final List<String> COURTESY_ZH =
      List.of(
          "好的", "好滴", "好嘞", "好啊", "好呀", "好吧", "收到", "明白", "了解", "知道", "懂了", "没问题", "谢谢", "谢啦", "多谢",
          "感谢", "不客气", "不用谢", "太好了", "真好", "真棒", "很好", "不错", "可以", "记住", "记下", "记得", "没关系", "当然",
          "哈哈", "嗯嗯", "加油", "恭喜", "厉害", "太棒", "有意思", "行", "好", "嗯", "哦", "噢", "哇", "对", "是");
  private static final String FUNCTION_ZH = "的了啊呀吧呢哈啦嘞么我你您会已经将这那个就也都很真太";

  private static final Pattern LATIN_WORD =
      Pattern.compile("[\\p{L}\\p{N}&&[^\\p{IsHan}]][\\p{L}\\p{N}'&&[^\\p{IsHan}]]*");
  private static final Pattern HAN = Pattern.compile("\\p{IsHan}+");

  private ReplyFiller() {}

  /** Whether {@code reply} is filler; a blank or {@code null} reply is. */
  public static boolean isFiller(String reply) {
    return contentWords(reply) < MIN_CONTENT_WORDS;
  }

  /** The content words of a reply by the rule above. */
  public static int contentWords(String reply) {
    if (reply == null || reply.isBlank()) {
      return 0;
    }
    String text = Normalizer.normalize(reply, Normalizer.Form.NFKC).replace('\u2019', '\'');
    int words = 0;
    Matcher latin = LATIN_WORD.matcher(HAN.matcher(text).replaceAll(" "));
    while (latin.find()) {
      String word = latin.group().toLowerCase(Locale.ROOT);
      int apostrophe = word.indexOf('\'');
      if (apostrophe > 0) {
        word = word.substring(0, apostrophe); // I'll, that's, it's
      }
      if (!COURTESY_EN.contains(word) && !StatementWords.STOP_EN.contains(word) && !pronoun(word)) {
        words++;
      }
    }
    Matcher han = HAN.matcher(text);
    int chars = 0;
    while (han.find()) {
      String run = han.group();
      for (String phrase : COURTESY_ZH) {
        run = run.replace(phrase, "");
      }
      for (int i = 0; i < run.length(); i++) {
        if (FUNCTION_ZH.indexOf(run.charAt(i)) < 0) {
          chars++;
        }
      }
    }
    return words + (chars + 1) / 2;
  }

  private static boolean pronoun(String word) {
    return Set.of("i", "me", "my", "you", "your", "we", "us", "our", "it", "that", "this")
        .contains(word);
  }
}
