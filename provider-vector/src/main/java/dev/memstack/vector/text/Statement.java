package dev.memstack.vector.text;

import java.math.BigDecimal;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tartarus.snowball.ext.EnglishStemmer;

/**
 * One short statement taken apart for {@link Supersession}: its <em>values</em> (negation, a yes/no
 * answer, numbers, dates, colours, quoted strings, names) and its <em>wording</em> (the remaining
 * content words, stemmed, and for Chinese the remaining characters and character bigrams), plus who
 * it is about (grammatical person). English and Chinese; other languages go through the English
 * rules (words between spaces, capitalised names).
 *
 * <p>Chinese has no spaces, so Chinese text is compared by characters and character bigrams after
 * removing values, person pronouns and function characters (的, 了, 是, ...). So {@code 我的储物柜密码是1111}
 * and {@code 我储物柜的密码是1111} both leave {@code 储物柜密码}. Removals join the characters around them, so
 * an inserted {@code 不} changes the negation, not the wording.
 */
final class Statement {

  /** A leading (or after a question mark) yes/no answer. */
  enum Answer {
    YES,
    NO
  }

  final boolean negated;
  final Answer answer;

  /** Numbers as plain decimal strings ({@code 1,200} and {@code 一千二百} are {@code 1200}). */
  final Set<String> numbers;

  /** Whether the only number is a "one" said as a word ({@code one}, {@code 一个}): an article. */
  final boolean softOne;

  final Set<String> dates;
  final Set<String> colours;
  final Set<String> quotes;

  /** Capitalised names (lower-cased), and Chinese names after 叫/名叫/姓. */
  final Set<String> names;

  /** Grammatical persons mentioned: 1s, 1p, 2, 3m, 3f, 3p. */
  final Set<String> persons;

  /** Relations mentioned (mother, sister, 丈夫, ...), canonical: who the statement is about. */
  final Set<String> relations;

  /** Every word of the text, lower-cased (to check whether a name occurs in it at all). */
  final Set<String> words;

  /** Content words, lower-cased, not stemmed; names of either text are dropped when comparing. */
  final List<String> contentWords;

  /** Chinese wording: the remaining characters of each Han run, joined. */
  final List<String> hanContent;

  /** The whole text, normalised (for Chinese name checks and identical texts). */
  final String normalized;

  private Statement(Builder b, String normalized) {
    this.negated = b.negated;
    this.answer = b.answer;
    this.softOne = b.numbers.size() == 1 && b.softOne && b.numbers.contains("1");
    this.numbers = Set.copyOf(b.numbers);
    this.dates = Set.copyOf(b.dates);
    this.colours = Set.copyOf(b.colours);
    this.quotes = Set.copyOf(b.quotes);
    this.names = Set.copyOf(b.names);
    this.persons = Set.copyOf(b.persons);
    this.relations = Set.copyOf(b.relations);
    this.words = Set.copyOf(b.words);
    this.contentWords = List.copyOf(b.contentWords);
    this.hanContent = List.copyOf(b.hanContent);
    this.normalized = normalized;
  }

  /** The single wording units: stemmed words and Han characters, without bigrams. */
  Set<String> words(Set<String> exclude, Set<String> asWords) {
    Set<String> single = new LinkedHashSet<>();
    for (String unit : units(exclude, asWords)) {
      if (!(unit.codePointCount(0, unit.length()) == 2 && isHan(unit.codePointAt(0)))) {
        single.add(unit);
      }
    }
    return single;
  }

  /**
   * The wording units: stemmed content words (plus {@code asWords}, names taken as ordinary words)
   * without {@code exclude}, and Han characters and bigrams without the Han names in {@code
   * exclude}.
   */
  Set<String> units(Set<String> exclude, Set<String> asWords) {
    Set<String> units = new LinkedHashSet<>();
    EnglishStemmer stemmer = new EnglishStemmer();
    List<String> latin = new ArrayList<>(contentWords);
    latin.addAll(asWords);
    for (String word : latin) {
      if (!exclude.contains(word)) {
        stemmer.setCurrent(word);
        stemmer.stem();
        units.add(stemmer.getCurrent());
      }
    }
    for (String run : hanContent) {
      String rest = run;
      for (String name : exclude) {
        if (!name.isEmpty() && isHan(name.codePointAt(0))) {
          rest = rest.replace(name, "");
        }
      }
      int[] cps = rest.codePoints().toArray();
      for (int i = 0; i < cps.length; i++) {
        units.add(new String(cps, i, 1));
        if (i + 1 < cps.length) {
          units.add(new String(cps, i, 2));
        }
      }
    }
    return units;
  }

  // ------------------------------------------------------------------ parsing

  private static final Pattern ROLE_PREFIX =
      Pattern.compile("^(?:\\[\\d{4}-\\d{2}-\\d{2}\\] )?(?:user|assistant): ");
  private static final Pattern DATE_PREFIX = Pattern.compile("^\\[\\d{4}-\\d{2}-\\d{2}\\] ");
  private static final Pattern QUOTED =
      Pattern.compile(
          "\"([^\"]{1,80})\"|«([^»]{1,80})»|「([^」]{1,80})」|『([^』]{1,80})』|《([^》]{1,80})》"
              + "|(?<![\\p{L}\\p{N}])'([^']{1,80})'(?![\\p{L}\\p{N}])");
  private static final Pattern LEADING_ANSWER_EN =
      Pattern.compile(
          "^\\s*(yes|yeah|yep|yup|correct|no|nope|nah)\\b[\\s,.!;:]*", Pattern.CASE_INSENSITIVE);
  private static final Pattern TRAILING_ANSWER_EN =
      Pattern.compile(
          "\\?\\s*(yes|yeah|yep|yup|correct|no|nope|nah)\\b[\\s,.!;:]*", Pattern.CASE_INSENSITIVE);
  private static final Pattern LEADING_ANSWER_ZH =
      Pattern.compile("^\\s*(是的|是啊|对的|没错|对|嗯|不是|不对|没有|不|没)\\s*[,.!;:?。、]");
  private static final Pattern DIGITS = Pattern.compile("\\d+(?:,\\d{3})*(?:\\.\\d+)?");
  private static final Pattern LATIN_WORD =
      Pattern.compile("[\\p{L}\\p{M}&&[^\\p{IsHan}]][\\p{L}\\p{M}'&&[^\\p{IsHan}]]*");
  private static final Pattern HAN_RUN = Pattern.compile("\\p{IsHan}+");

  private static final Set<String> YES_WORDS = Set.of("yes", "yeah", "yep", "yup", "correct");
  private static final Set<String> YES_ZH = Set.of("是的", "是啊", "对的", "没错", "对", "嗯");

  private static final Set<String> NEGATION_EN =
      Set.of(
          "not", "no", "never", "none", "nothing", "nobody", "nowhere", "neither", "nor", "cannot",
          "without");

  private static final Map<String, String> PERSONS_EN =
      Map.ofEntries(
          Map.entry("i", "1s"),
          Map.entry("me", "1s"),
          Map.entry("my", "1s"),
          Map.entry("mine", "1s"),
          Map.entry("myself", "1s"),
          Map.entry("we", "1p"),
          Map.entry("us", "1p"),
          Map.entry("our", "1p"),
          Map.entry("ours", "1p"),
          Map.entry("ourselves", "1p"),
          Map.entry("you", "2"),
          Map.entry("your", "2"),
          Map.entry("yours", "2"),
          Map.entry("yourself", "2"),
          Map.entry("he", "3m"),
          Map.entry("him", "3m"),
          Map.entry("his", "3m"),
          Map.entry("himself", "3m"),
          Map.entry("she", "3f"),
          Map.entry("her", "3f"),
          Map.entry("hers", "3f"),
          Map.entry("herself", "3f"),
          Map.entry("they", "3p"),
          Map.entry("them", "3p"),
          Map.entry("their", "3p"),
          Map.entry("theirs", "3p"));

  /** Function words, intensifiers and "now/anymore"-style change markers: not wording. */
  static final Set<String> STOP_EN =
      Set.of(
          "a",
          "an",
          "the",
          "is",
          "am",
          "are",
          "was",
          "were",
          "be",
          "been",
          "being",
          "do",
          "does",
          "did",
          "have",
          "has",
          "had",
          "having",
          "will",
          "would",
          "shall",
          "should",
          "can",
          "could",
          "may",
          "might",
          "must",
          "to",
          "of",
          "in",
          "on",
          "at",
          "for",
          "with",
          "by",
          "from",
          "as",
          "about",
          "into",
          "onto",
          "over",
          "under",
          "and",
          "or",
          "but",
          "so",
          "if",
          "then",
          "than",
          "that",
          "this",
          "these",
          "those",
          "there",
          "here",
          "it",
          "its",
          "also",
          "too",
          "very",
          "really",
          "just",
          "still",
          "now",
          "anymore",
          "longer",
          "ever",
          "always",
          "again",
          "already",
          "actually",
          "currently",
          "every",
          "each",
          "some",
          "any",
          "all",
          "which",
          "what",
          "who",
          "whom",
          "whose",
          "when",
          "where",
          "why",
          "how",
          "go",
          "going",
          "get",
          "got",
          "s",
          "please",
          "only");

  /** Relation words and their canonical form (a closed class, so synonyms are known). */
  private static final Map<String, String> RELATIONS_EN = relationsEn();

  /** Chinese relation words, longest first, and their canonical form. */
  private static final List<Map.Entry<String, String>> RELATIONS_ZH =
      List.of(
          Map.entry("男朋友", "男友"),
          Map.entry("女朋友", "女友"),
          Map.entry("老公", "丈夫"),
          Map.entry("先生", "丈夫"),
          Map.entry("丈夫", "丈夫"),
          Map.entry("老婆", "妻子"),
          Map.entry("太太", "妻子"),
          Map.entry("妻子", "妻子"),
          Map.entry("妈妈", "母亲"),
          Map.entry("母亲", "母亲"),
          Map.entry("老妈", "母亲"),
          Map.entry("爸爸", "父亲"),
          Map.entry("父亲", "父亲"),
          Map.entry("老爸", "父亲"),
          Map.entry("父母", "父母"),
          Map.entry("哥哥", "哥哥"),
          Map.entry("弟弟", "弟弟"),
          Map.entry("姐姐", "姐姐"),
          Map.entry("妹妹", "妹妹"),
          Map.entry("儿子", "儿子"),
          Map.entry("女儿", "女儿"),
          Map.entry("孩子", "孩子"),
          Map.entry("朋友", "朋友"),
          Map.entry("同事", "同事"),
          Map.entry("老板", "老板"),
          Map.entry("奶奶", "奶奶"),
          Map.entry("爷爷", "爷爷"),
          Map.entry("外婆", "外婆"),
          Map.entry("姥姥", "外婆"),
          Map.entry("外公", "外公"),
          Map.entry("姥爷", "外公"));

  private static final Set<String> NAMING_EN =
      Set.of("name", "names", "named", "call", "calls", "called");

  private static final Set<String> WEEKDAYS =
      Set.of("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday");
  private static final Set<String> MONTHS =
      Set.of(
          "january",
          "february",
          "april",
          "june",
          "july",
          "august",
          "september",
          "october",
          "november",
          "december");

  /** Months that are also ordinary words: dates only when capitalised. */
  private static final Set<String> CAPITAL_MONTHS = Set.of("may", "march");

  private static final Set<String> RELATIVE_DAYS =
      Set.of("today", "tomorrow", "yesterday", "tonight", "weekend");
  private static final Set<String> COLOURS_EN =
      Set.of(
          "red",
          "orange",
          "yellow",
          "green",
          "blue",
          "purple",
          "violet",
          "pink",
          "brown",
          "black",
          "white",
          "grey",
          "gray",
          "silver",
          "gold",
          "beige",
          "turquoise");

  private static final Map<String, Integer> NUMBER_WORDS = numberWords();

  private static final Pattern DATE_ZH =
      Pattern.compile(
          "(?:星期|礼拜)[一二三四五六日天]|周[一二三四五六日末]|今天|明天|后天|昨天|前天|今晚|明晚|今年|明年|去年"
              + "|上周|下周|本周|上个月|下个月|这个月");
  private static final Pattern COLOUR_ZH = Pattern.compile("[红橙黄绿蓝紫粉棕黑白灰金银]色");
  private static final Pattern NAME_ZH = Pattern.compile("(?:名叫|叫做|叫|姓)(\\p{IsHan}{1,4})$");

  /** Words with a negation character that do not negate (非常 = very, 别人 = others, ...). */
  private static final List<String> NOT_NEGATIONS_ZH =
      List.of(
          "非常", "并非常", "别人", "别的", "特别", "区别", "分别", "告别", "差别", "级别", "类别", "性别", "识别", "无论", "无聊",
          "无线", "无数", "无限", "不错", "没错", "不仅", "不但", "不久", "差不多", "不得不", "不管", "不断", "不少", "未来",
          "非洲", "是非", "不好意思", "不客气", "没关系", "莫名");

  private static final String NEGATION_ZH = "不没别无未非勿莫否";

  private static final Pattern NUMERAL_ZH = Pattern.compile("第?[零〇一二两三四五六七八九十百千万亿]+");
  private static final List<String> NOT_NUMERALS_ZH =
      List.of(
          "一起", "一下", "一些", "一样", "一直", "一定", "一般", "一切", "一会", "一边", "统一", "万一", "唯一", "一旦", "一向",
          "十分", "千万", "万分", "一致", "同一", "一再", "一点儿", "一点点", "一共", "一生", "一面");
  private static final String UNITS_ZH = "年月日号点时分秒岁个只位名元块次天周条本件张口家辆台";

  private static final Map<String, String> PERSONS_ZH =
      Map.of(
          "我们", "1p", "咱们", "1p", "你们", "2", "他们", "3p", "她们", "3p", "我", "1s", "你", "2", "您", "2",
          "他", "3m", "她", "3f");
  private static final List<String> STOP_WORDS_ZH =
      List.of(
          "现在", "已经", "从来", "目前", "真的", "非常", "特别", "改到", "改成", "改为", "换成", "变成", "还是", "一直", "再也");
  private static final String STOP_CHARS_ZH = "的地得了着吗呢啊吧呀哦嘛是也都就很还又在和与跟对把被给这那个些有再";

  static Statement parse(String raw) {
    String text = Normalizer.normalize(raw, Normalizer.Form.NFKC);
    text = ROLE_PREFIX.matcher(text).replaceFirst("");
    text = DATE_PREFIX.matcher(text).replaceFirst("");
    text = text.replace('\u2019', '\'').replace('\u2018', '\'');
    text = text.replace('\u201c', '"').replace('\u201d', '"').strip();
    String normalized = text.replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    Builder b = new Builder();

    // quoted strings are values
    StringBuilder rest = new StringBuilder();
    Matcher q = QUOTED.matcher(text);
    int last = 0;
    while (q.find()) {
      for (int g = 1; g <= q.groupCount(); g++) {
        if (q.group(g) != null) {
          b.quotes.add(q.group(g).strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT));
        }
      }
      rest.append(text, last, q.start()).append(" , ");
      last = q.end();
    }
    rest.append(text.substring(last));
    text = rest.toString();

    // a yes/no answer: leading, or right after a question
    Matcher a = LEADING_ANSWER_EN.matcher(text);
    if (a.find()) {
      b.answer = YES_WORDS.contains(a.group(1).toLowerCase(Locale.ROOT)) ? Answer.YES : Answer.NO;
      text = ", " + text.substring(a.end()); // what follows is not a sentence start
    } else {
      Matcher z = LEADING_ANSWER_ZH.matcher(text);
      if (z.find()) {
        b.answer = YES_ZH.contains(z.group(1)) ? Answer.YES : Answer.NO;
        text = ", " + text.substring(z.end());
      }
    }
    Matcher t = TRAILING_ANSWER_EN.matcher(text);
    if (t.find()) {
      b.answer = YES_WORDS.contains(t.group(1).toLowerCase(Locale.ROOT)) ? Answer.YES : Answer.NO;
      text = text.substring(0, t.start()) + ". " + text.substring(t.end());
    }

    // digits (with a Chinese unit character right after them: 5月, 3点, 2只)
    Matcher d = DIGITS.matcher(text);
    StringBuilder noDigits = new StringBuilder();
    last = 0;
    while (d.find()) {
      String number = d.group();
      b.numbers.add(plain(number.replace(",", "")));
      noDigits.append(text, last, d.start());
      boolean inHan =
          d.start() > 0
              && d.end() < text.length()
              && isHan(text.codePointBefore(d.start()))
              && isHan(text.codePointAt(d.end()));
      if (!inHan) {
        noDigits.append(' '); // between Chinese characters the run stays one run
      }
      last = d.end();
    }
    noDigits.append(text.substring(last));
    text = noDigits.toString();

    // Chinese runs
    Matcher h = HAN_RUN.matcher(text);
    while (h.find()) {
      han(h.group(), b);
    }
    String latin = HAN_RUN.matcher(text).replaceAll(" ");
    latin(latin, b);
    return new Statement(b, normalized);
  }

  private static void latin(String text, Builder b) {
    Matcher m = LATIN_WORD.matcher(text);
    List<String> numberRun = new ArrayList<>();
    while (m.find()) {
      String original = m.group();
      boolean sentenceStart = sentenceStart(text, m.start());
      for (String word : expand(original)) {
        String lower = word.toLowerCase(Locale.ROOT);
        b.words.add(lower);
        if (NUMBER_WORDS.containsKey(lower)) {
          numberRun.add(lower);
          continue;
        }
        flushNumber(numberRun, b);
        if (NEGATION_EN.contains(lower)) {
          b.negated = true;
        } else if (PERSONS_EN.containsKey(lower)) {
          b.persons.add(PERSONS_EN.get(lower));
        } else if (WEEKDAYS.contains(lower)
            || MONTHS.contains(lower)
            || RELATIVE_DAYS.contains(lower)
            || (CAPITAL_MONTHS.contains(lower) && Character.isUpperCase(word.charAt(0)))) {
          b.dates.add(lower);
        } else if (COLOURS_EN.contains(lower)) {
          b.colours.add(lower);
        } else if (RELATIONS_EN.containsKey(lower)) {
          String relation = RELATIONS_EN.get(lower);
          b.relations.add(relation);
          b.contentWords.add(relation);
        } else if (NAMING_EN.contains(lower)) {
          b.contentWords.add("name"); // "is called", "is named", "name is": one notion, like 叫
        } else if (STOP_EN.contains(lower)) {
          // not wording
        } else if (isName(word, sentenceStart)
            || (sentenceStart && isSubjectName(original, text, m.end()))) {
          b.names.add(lower);
        } else {
          b.contentWords.add(lower);
        }
        sentenceStart = false;
      }
    }
    flushNumber(numberRun, b);
  }

  /** Contractions: {@code isn't} → is not, {@code I'm} → I am, {@code sister's} → sister. */
  private static List<String> expand(String word) {
    String lower = word.toLowerCase(Locale.ROOT);
    if (lower.equals("can't")) {
      return List.of("can", "not");
    }
    if (lower.equals("won't")) {
      return List.of("will", "not");
    }
    if (lower.endsWith("n't") && lower.length() > 3) {
      return List.of(word.substring(0, word.length() - 3), "not");
    }
    int apostrophe = word.indexOf('\'');
    if (apostrophe > 0) {
      String head = word.substring(0, apostrophe);
      String tail = lower.substring(apostrophe + 1);
      return switch (tail) {
        case "m" -> List.of(head, "am");
        case "re" -> List.of(head, "are");
        case "ve" -> List.of(head, "have");
        case "ll" -> List.of(head, "will");
        case "d" -> List.of(head, "would");
        default -> List.of(head); // 's: "is" or a possessive, neither is wording
      };
    }
    return List.of(word);
  }

  private static boolean isName(String word, boolean sentenceStart) {
    int upper = 0;
    for (int i = 0; i < word.length(); i++) {
      if (Character.isUpperCase(word.charAt(i))) {
        upper++;
      }
    }
    if (upper >= 2 && word.length() >= 2) {
      return true; // NASA, iPhone-like, McDonald
    }
    return upper == 1 && Character.isUpperCase(word.charAt(0)) && !sentenceStart;
  }

  /** A capitalised first word that is the subject of "is/was/..." ("Sam is my manager"). */
  private static boolean isSubjectName(String original, String text, int end) {
    if (!Character.isUpperCase(original.charAt(0))) {
      return false;
    }
    if (original.toLowerCase(Locale.ROOT).endsWith("'s")) {
      return true;
    }
    return SUBJECT_VERB.matcher(text).region(end, text.length()).lookingAt();
  }

  private static final Pattern SUBJECT_VERB =
      Pattern.compile("\\s+(?:is|was|are|were|has|had|will)\\b");

  private static boolean sentenceStart(String text, int index) {
    for (int i = index - 1; i >= 0; i--) {
      char c = text.charAt(i);
      if (Character.isWhitespace(c) || c == '"' || c == '(' || c == '[') {
        continue;
      }
      return c == '.' || c == '!' || c == '?' || c == ':' || c == ';' || c == '。';
    }
    return true;
  }

  private static void flushNumber(List<String> run, Builder b) {
    if (run.isEmpty()) {
      return;
    }
    long total = 0;
    long current = 0;
    for (String word : run) {
      int value = NUMBER_WORDS.get(word);
      if (value == 100) {
        current = Math.max(current, 1) * 100;
      } else if (value >= 1000) {
        total += Math.max(current, 1) * value;
        current = 0;
      } else {
        current += value;
      }
    }
    long number = total + current;
    if (number == 1 && run.size() == 1) {
      b.softOne = true;
    }
    b.numbers.add(Long.toString(number));
    run.clear();
  }

  private static void han(String run, Builder b) {
    StringBuilder s = new StringBuilder(run.replace('号', '日')); // 5月3号 = 5月3日
    // 1. values that are whole words: dates, colours, a name after 叫
    cut(s, DATE_ZH, b.dates);
    cut(s, COLOUR_ZH, b.colours);
    Matcher name = NAME_ZH.matcher(s);
    if (name.find()) {
      b.names.add(name.group(1));
      s.setLength(name.start());
    }
    // 2. negation characters, except in words where they do not negate
    boolean[] kept = new boolean[s.length()];
    for (String word : NOT_NEGATIONS_ZH) {
      for (int i = s.indexOf(word); i >= 0; i = s.indexOf(word, i + 1)) {
        for (int k = i; k < i + word.length(); k++) {
          kept[k] = true;
        }
      }
    }
    StringBuilder withoutNegation = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      if (!kept[i] && NEGATION_ZH.indexOf(s.charAt(i)) >= 0) {
        b.negated = true;
      } else {
        withoutNegation.append(s.charAt(i));
      }
    }
    s = withoutNegation;
    // 3. numerals (一九八五, 三十, 两只), not in 一起/一直/十分 ...
    numerals(s, b);
    // 4. relations (canonical, also as wording), persons, function words and characters
    for (Map.Entry<String, String> relation : RELATIONS_ZH) {
      int at = s.indexOf(relation.getKey());
      while (at >= 0) {
        b.relations.add(relation.getValue());
        s.replace(at, at + relation.getKey().length(), relation.getValue());
        at = s.indexOf(relation.getKey(), at + relation.getValue().length());
      }
    }
    for (Map.Entry<String, String> person : List.copyOf(PERSONS_ZH.entrySet())) {
      if (person.getKey().length() == 2 && s.indexOf(person.getKey()) >= 0) {
        b.persons.add(person.getValue());
        remove(s, person.getKey());
      }
    }
    for (Map.Entry<String, String> person : PERSONS_ZH.entrySet()) {
      if (person.getKey().length() == 1 && s.indexOf(person.getKey()) >= 0) {
        b.persons.add(person.getValue());
        remove(s, person.getKey());
      }
    }
    for (String word : STOP_WORDS_ZH) {
      remove(s, word);
    }
    StringBuilder content = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      if (STOP_CHARS_ZH.indexOf(s.charAt(i)) < 0) {
        content.append(s.charAt(i));
      }
    }
    if (content.length() > 0) {
      b.hanContent.add(content.toString());
    }
  }

  private static void numerals(StringBuilder s, Builder b) {
    boolean[] blocked = new boolean[s.length()];
    for (String word : NOT_NUMERALS_ZH) {
      for (int i = s.indexOf(word); i >= 0; i = s.indexOf(word, i + 1)) {
        for (int k = i; k < i + word.length(); k++) {
          blocked[k] = true;
        }
      }
    }
    Matcher m = NUMERAL_ZH.matcher(s);
    List<int[]> spans = new ArrayList<>();
    while (m.find()) {
      int start = m.start();
      int end = m.end();
      boolean free = true;
      for (int k = start; k < end; k++) {
        free &= !blocked[k];
      }
      if (!free) {
        continue;
      }
      boolean ordinal = s.charAt(start) == '第';
      String digits = s.substring(ordinal ? start + 1 : start, end);
      if (digits.isEmpty()) {
        continue;
      }
      boolean unit = end < s.length() && UNITS_ZH.indexOf(s.charAt(end)) >= 0;
      if (!(ordinal || unit || digits.length() >= 2)) {
        continue; // a lone 一/十 inside a word
      }
      long value = chineseNumber(digits);
      if (value < 0) {
        continue;
      }
      if (value == 1 && !ordinal && digits.length() == 1) {
        b.softOne = true; // 一个: an article as often as a count
      }
      b.numbers.add(Long.toString(value));
      spans.add(new int[] {start, end}); // a unit (岁, 只, 点) stays: it is wording
    }
    for (int i = spans.size() - 1; i >= 0; i--) {
      s.delete(spans.get(i)[0], spans.get(i)[1]);
    }
  }

  /** 一九八五 → 1985, 三十五 → 35, 两万三千 → 23000; -1 when it is not a number. */
  static long chineseNumber(String text) {
    String digits = "零一二三四五六七八九";
    boolean plainDigits = true;
    for (char c : text.toCharArray()) {
      plainDigits &= digits.indexOf(c) >= 0 || c == '〇' || c == '两';
    }
    if (plainDigits) {
      long value = 0;
      for (char c : text.toCharArray()) {
        value = value * 10 + digit(c);
      }
      return value;
    }
    long total = 0;
    long section = 0;
    long current = 0;
    for (char c : text.toCharArray()) {
      int dgt = digit(c);
      if (dgt >= 0) {
        current = dgt;
      } else if (c == '十' || c == '百' || c == '千') {
        int unit = c == '十' ? 10 : c == '百' ? 100 : 1000;
        section += (current == 0 ? 1 : current) * unit;
        current = 0;
      } else if (c == '万' || c == '亿') {
        long unit = c == '万' ? 10_000L : 100_000_000L;
        total += (section + current) * unit;
        section = 0;
        current = 0;
      } else {
        return -1;
      }
    }
    return total + section + current;
  }

  private static int digit(char c) {
    return switch (c) {
      case '零', '〇' -> 0;
      case '一' -> 1;
      case '二', '两' -> 2;
      case '三' -> 3;
      case '四' -> 4;
      case '五' -> 5;
      case '六' -> 6;
      case '七' -> 7;
      case '八' -> 8;
      case '九' -> 9;
      default -> -1;
    };
  }

  private static void cut(StringBuilder s, Pattern pattern, Set<String> into) {
    Matcher m = pattern.matcher(s);
    StringBuilder out = new StringBuilder();
    int last = 0;
    while (m.find()) {
      into.add(m.group());
      out.append(s, last, m.start());
      last = m.end();
    }
    out.append(s.substring(last));
    s.setLength(0);
    s.append(out);
  }

  private static void remove(StringBuilder s, String word) {
    for (int i = s.indexOf(word); i >= 0; i = s.indexOf(word, i)) {
      s.delete(i, i + word.length());
    }
  }

  private static String plain(String number) {
    try {
      return new BigDecimal(number).stripTrailingZeros().toPlainString();
    } catch (NumberFormatException e) {
      return number;
    }
  }

  static boolean isHan(int codePoint) {
    return Character.UnicodeScript.of(codePoint) == Character.UnicodeScript.HAN;
  }

  private static Map<String, String> relationsEn() {
    Map<String, String> relations = new java.util.HashMap<>();
    String[][] groups = {
      {"mother", "mom", "mum", "mommy", "mummy", "mothers"},
      {"father", "dad", "daddy", "fathers"},
      {"parents", "parent"},
      {"sister", "sisters"},
      {"brother", "brothers"},
      {"son", "sons"},
      {"daughter", "daughters"},
      {"wife"},
      {"husband"},
      {"partner", "spouse"},
      {"boyfriend"},
      {"girlfriend"},
      {"friend", "friends"},
      {"colleague", "coworker", "colleagues", "coworkers"},
      {"boss", "manager"},
      {"child", "children", "kid", "kids"},
      {"grandmother", "grandma", "granny"},
      {"grandfather", "grandpa"},
      {"aunt"},
      {"uncle"},
      {"cousin"},
      {"niece"},
      {"nephew"}
    };
    for (String[] group : groups) {
      for (String word : group) {
        relations.put(word, group[0]);
      }
    }
    return Map.copyOf(relations);
  }

  private static Map<String, Integer> numberWords() {
    String[] small = {
      "zero",
      "one",
      "two",
      "three",
      "four",
      "five",
      "six",
      "seven",
      "eight",
      "nine",
      "ten",
      "eleven",
      "twelve",
      "thirteen",
      "fourteen",
      "fifteen",
      "sixteen",
      "seventeen",
      "eighteen",
      "nineteen"
    };
    Map<String, Integer> words = new java.util.HashMap<>();
    for (int i = 0; i < small.length; i++) {
      words.put(small[i], i);
    }
    String[] tens = {"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"};
    for (int i = 0; i < tens.length; i++) {
      words.put(tens[i], (i + 2) * 10);
    }
    words.put("hundred", 100);
    words.put("thousand", 1000);
    words.put("million", 1_000_000);
    return Map.copyOf(words);
  }

  private static final class Builder {
    boolean negated;
    Answer answer;
    boolean softOne;
    final Set<String> numbers = new LinkedHashSet<>();
    final Set<String> dates = new LinkedHashSet<>();
    final Set<String> colours = new LinkedHashSet<>();
    final Set<String> quotes = new LinkedHashSet<>();
    final Set<String> names = new LinkedHashSet<>();
    final Set<String> persons = new LinkedHashSet<>();
    final Set<String> relations = new LinkedHashSet<>();
    final Set<String> words = new LinkedHashSet<>();
    final List<String> contentWords = new ArrayList<>();
    final List<String> hanContent = new ArrayList<>();
  }
}
