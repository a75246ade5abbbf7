package dev.memstack.vector.text;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The closed word classes {@link Statement} reads values and wording with (English and Chinese).
 */
final class StatementWords {

  static final Set<String> YES_WORDS = Set.of("yes", "yeah", "yep", "yup", "correct");
  static final Set<String> YES_ZH = Set.of("是的", "是啊", "对的", "没错", "对", "嗯");

  static final Set<String> NEGATION_EN =
      Set.of(
          "not", "no", "never", "none", "nothing", "nobody", "nowhere", "neither", "nor", "cannot",
          "without");

  static final Map<String, String> PERSONS_EN =
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
  static final Map<String, String> RELATIONS_EN = relationsEn();

  /** Chinese relation words, longest first, and their canonical form. */
  static final List<Map.Entry<String, String>> RELATIONS_ZH =
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

  static final Set<String> NAMING_EN = Set.of("name", "names", "named", "call", "calls", "called");

  static final Set<String> WEEKDAYS =
      Set.of("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday");
  static final Set<String> MONTHS =
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
  static final Set<String> CAPITAL_MONTHS = Set.of("may", "march");

  static final Set<String> RELATIVE_DAYS =
      Set.of("today", "tomorrow", "yesterday", "tonight", "weekend");
  static final Set<String> COLOURS_EN =
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

  static final Map<String, Integer> NUMBER_WORDS = dev.memstack.support.NumberWords.VALUES;

  /** Words with a negation character that do not negate (非常 = very, 别人 = others, ...). */
  static final List<String> NOT_NEGATIONS_ZH =
      List.of(
          "非常", "并非常", "别人", "别的", "特别", "区别", "分别", "告别", "差别", "级别", "类别", "性别", "识别", "无论", "无聊",
          "无线", "无数", "无限", "不错", "没错", "不仅", "不但", "不久", "差不多", "不得不", "不管", "不断", "不少", "未来",
          "非洲", "是非", "不好意思", "不客气", "没关系", "莫名");

  static final String NEGATION_ZH = "不没别无未非勿莫否";

  static final List<String> NOT_NUMERALS_ZH =
      List.of(
          "一起", "一下", "一些", "一样", "一直", "一定", "一般", "一切", "一会", "一边", "统一", "万一", "唯一", "一旦", "一向",
          "十分", "千万", "万分", "一致", "同一", "一再", "一点儿", "一点点", "一共", "一生", "一面");
  static final String UNITS_ZH = "年月日号点时分秒岁个只位名元块次天周条本件张口家辆台";

  static final Map<String, String> PERSONS_ZH =
      Map.of(
          "我们", "1p", "咱们", "1p", "你们", "2", "他们", "3p", "她们", "3p", "我", "1s", "你", "2", "您", "2",
          "他", "3m", "她", "3f");
  static final List<String> STOP_WORDS_ZH =
      List.of(
          "现在", "已经", "从来", "目前", "真的", "非常", "特别", "改到", "改成", "改为", "换成", "变成", "还是", "一直", "再也");
  static final String STOP_CHARS_ZH = "的地得了着吗呢啊吧呀哦嘛是也都就很还又在和与跟对把被给这那个些有再";

  private StatementWords() {}

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
}
