package dev.memstack.vector.text;

import static dev.memstack.vector.text.StatementWords.NEGATION_ZH;
import static dev.memstack.vector.text.StatementWords.NOT_NEGATIONS_ZH;
import static dev.memstack.vector.text.StatementWords.NOT_NUMERALS_ZH;
import static dev.memstack.vector.text.StatementWords.PERSONS_ZH;
import static dev.memstack.vector.text.StatementWords.RELATIONS_ZH;
import static dev.memstack.vector.text.StatementWords.STOP_CHARS_ZH;
import static dev.memstack.vector.text.StatementWords.STOP_WORDS_ZH;
import static dev.memstack.vector.text.StatementWords.UNITS_ZH;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the Chinese runs of a {@link Statement}: dates, colours, names after 叫, negation,
 * relations, persons, numerals and the remaining characters.
 */
final class HanParts {

  private static final Pattern DATE_ZH =
      Pattern.compile(
          "(?:星期|礼拜)[一二三四五六日天]|周[一二三四五六日末]|今天|明天|后天|昨天|前天|今晚|明晚|今年|明年|去年"
              + "|上周|下周|本周|上个月|下个月|这个月");
  private static final Pattern COLOUR_ZH = Pattern.compile("[红橙黄绿蓝紫粉棕黑白灰金银]色");
  private static final Pattern NAME_ZH = Pattern.compile("(?:名叫|叫做|叫|姓)(\\p{IsHan}{1,4})$");
  private static final Pattern NUMERAL_ZH = Pattern.compile("第?[零〇一二两三四五六七八九十百千万亿]+");

  private HanParts() {}

  static void read(String run, Statement.Builder b) {
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

  private static void numerals(StringBuilder s, Statement.Builder b) {
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
}
