package dev.memstack.host.stack;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The calendar dates a question names: {@code 12.01.2024} and {@code 12/01/2024} (day first),
 * {@code 2024-01-12}, {@code 12 January 2024}, {@code January 12, 2024}. A date without a year, or
 * one that does not exist, is not read.
 */
final class QuestionDates {

  private static final String MONTH =
      "(january|february|march|april|may|june|july|august|september|october|november|december"
          + "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)";

  private static final Pattern DAY_FIRST =
      Pattern.compile("\\b(\\d{1,2})[./](\\d{1,2})[./](\\d{4})\\b");
  private static final Pattern ISO = Pattern.compile("\\b(\\d{4})-(\\d{2})-(\\d{2})\\b");
  private static final Pattern DAY_MONTH =
      Pattern.compile(
          "\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?" + MONTH + ",?\\s+(\\d{4})\\b",
          Pattern.CASE_INSENSITIVE);
  private static final Pattern MONTH_DAY =
      Pattern.compile(
          "\\b" + MONTH + "\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b",
          Pattern.CASE_INSENSITIVE);

  private QuestionDates() {}

  static Set<LocalDate> of(String question) {
    Set<LocalDate> dates = new LinkedHashSet<>();
    if (question == null || question.isEmpty()) {
      return dates;
    }
    Matcher m = DAY_FIRST.matcher(question);
    while (m.find()) {
      add(dates, m.group(3), m.group(2), m.group(1));
    }
    m = ISO.matcher(question);
    while (m.find()) {
      add(dates, m.group(1), m.group(2), m.group(3));
    }
    m = DAY_MONTH.matcher(question);
    while (m.find()) {
      add(dates, m.group(3), Integer.toString(month(m.group(2))), m.group(1));
    }
    m = MONTH_DAY.matcher(question);
    while (m.find()) {
      add(dates, m.group(3), Integer.toString(month(m.group(1))), m.group(2));
    }
    return dates;
  }

  private static int month(String name) {
    String prefix = name.toLowerCase(Locale.ROOT).substring(0, 3);
    return "janfebmaraprmayjunjulaugsepoctnovdec".indexOf(prefix) / 3 + 1;
  }

  private static void add(Set<LocalDate> dates, String year, String month, String day) {
    try {
      dates.add(
          LocalDate.of(Integer.parseInt(year), Integer.parseInt(month), Integer.parseInt(day)));
    } catch (DateTimeException | NumberFormatException e) {
      // not a date
    }
  }
}
