package dev.memstack.support;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * English number words and their values ({@code zero} to {@code nineteen}, the tens, {@code
 * hundred}, {@code thousand}, {@code million}): what reads a number written out in a memory or a
 * question, in the vector provider's superseding check and in the host's ranking features.
 */
public final class NumberWords {

  private static final List<String> SMALL =
      List.of(
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
          "nineteen");

  private static final List<String> TENS =
      List.of("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety");

  /** Each number word (lower case) and its value. */
  public static final Map<String, Integer> VALUES = values();

  private NumberWords() {}

  private static Map<String, Integer> values() {
    Map<String, Integer> words = new HashMap<>();
    for (int i = 0; i < SMALL.size(); i++) {
      words.put(SMALL.get(i), i);
    }
    for (int i = 0; i < TENS.size(); i++) {
      words.put(TENS.get(i), (i + 2) * 10);
    }
    words.put("hundred", 100);
    words.put("thousand", 1000);
    words.put("million", 1_000_000);
    return Map.copyOf(words);
  }
}
