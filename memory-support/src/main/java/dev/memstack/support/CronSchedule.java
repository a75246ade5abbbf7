package dev.memstack.support;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.time.DayOfWeek;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.Locale;
import java.util.Objects;

/**
 * A six-field cron expression as Spring writes it: {@code second minute hour day-of-month month
 * day-of-week}. Each field takes {@code *}, {@code ?} (day fields), a number, a range {@code a-b},
 * a step {@code * /n} or {@code a-b/n} (without the space), or a comma list of those; months take
 * {@code JAN}-{@code DEC}, days of week {@code 0}-{@code 7} (0 and 7 are Sunday) or {@code
 * SUN}-{@code SAT}. When both day fields are restricted a day matches if either does (as classic
 * cron). Immutable and thread-safe. Shared by the providers' nightly jobs (builtin's dreaming and
 * structured consolidation, vector's structured consolidation).
 */
public final class CronSchedule {

  private static final String[] MONTHS = {
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"
  };
  private static final String[] DAYS = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

  private final String expression;
  private final BitSet seconds;
  private final BitSet minutes;
  private final BitSet hours;
  private final BitSet daysOfMonth;
  private final BitSet months;
  private final BitSet daysOfWeek;
  private final boolean anyDayOfMonth;
  private final boolean anyDayOfWeek;

  private CronSchedule(String expression, String[] fields) {
    this.expression = expression;
    this.seconds = field(fields[0], "second", 0, 59, null);
    this.minutes = field(fields[1], "minute", 0, 59, null);
    this.hours = field(fields[2], "hour", 0, 23, null);
    this.daysOfMonth = field(fields[3], "day-of-month", 1, 31, null);
    this.months = field(fields[4], "month", 1, 12, MONTHS);
    BitSet dow = field(fields[5], "day-of-week", 0, 7, DAYS);
    if (dow.get(7)) {
      dow.set(0);
    }
    this.daysOfWeek = dow;
    this.anyDayOfMonth = isAny(fields[3]);
    this.anyDayOfWeek = isAny(fields[5]);
  }

  /**
   * Parses a six-field expression.
   *
   * @throws IllegalArgumentException naming the field that is wrong
   */
  public static CronSchedule parse(String expression) {
    Objects.requireNonNull(expression, "expression");
    String[] fields = expression.trim().split("\\s+");
    if (fields.length != 6) {
      throw new IllegalArgumentException(
          "must have six fields (second minute hour day-of-month month day-of-week), got "
              + fields.length
              + ": '"
              + expression
              + "'");
    }
    return new CronSchedule(expression.trim(), fields);
  }

  /**
   * The expression of the configuration key {@code key}, or {@code fallback} when it is not set.
   *
   * @throws ProviderConfigException naming the key and the field that is wrong
   */
  public static CronSchedule of(ProviderConfig config, String key, String fallback) {
    try {
      return parse(config.string(key, fallback));
    } catch (IllegalArgumentException e) {
      throw new ProviderConfigException(config.fullKey(key), e.getMessage());
    }
  }

  /** The first time strictly after {@code after} that matches, in {@code after}'s zone. */
  public ZonedDateTime next(ZonedDateTime after) {
    ZonedDateTime t = after.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    ZonedDateTime limit = after.plusYears(5);
    while (t.isBefore(limit)) {
      if (!months.get(t.getMonthValue())) {
        t = t.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).plusMonths(1);
        continue;
      }
      if (!dayMatches(t)) {
        t = t.truncatedTo(ChronoUnit.DAYS).plusDays(1);
        continue;
      }
      if (!hours.get(t.getHour())) {
        t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
        continue;
      }
      if (!minutes.get(t.getMinute())) {
        t = t.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        continue;
      }
      if (!seconds.get(t.getSecond())) {
        t = t.plusSeconds(1);
        continue;
      }
      return t;
    }
    throw new IllegalStateException("cron '" + expression + "' never matches within five years");
  }

  private boolean dayMatches(ZonedDateTime t) {
    boolean dom = daysOfMonth.get(t.getDayOfMonth());
    boolean dow =
        daysOfWeek.get(t.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : t.getDayOfWeek().getValue());
    if (anyDayOfMonth && anyDayOfWeek) {
      return true;
    }
    if (anyDayOfMonth) {
      return dow;
    }
    if (anyDayOfWeek) {
      return dom;
    }
    return dom || dow;
  }

  private static boolean isAny(String field) {
    return field.equals("*") || field.equals("?");
  }

  private static BitSet field(String text, String name, int min, int max, String[] names) {
    BitSet bits = new BitSet(max + 1);
    for (String part : text.split(",", -1)) {
      try {
        parsePart(part.toUpperCase(Locale.ROOT), min, max, names, bits);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            name + " field '" + text + "' is invalid: " + e.getMessage());
      }
    }
    return bits;
  }

  private static void parsePart(String part, int min, int max, String[] names, BitSet bits) {
    if (part.isEmpty()) {
      throw new IllegalArgumentException("empty list element");
    }
    String range = part;
    int step = 1;
    int slash = part.indexOf('/');
    if (slash >= 0) {
      range = part.substring(0, slash);
      step = number(part.substring(slash + 1), 1, max, null, 0);
    }
    int from;
    int to;
    if (range.equals("*") || range.equals("?")) {
      from = min;
      to = max;
    } else if (range.indexOf('-') > 0) {
      int dash = range.indexOf('-');
      from = number(range.substring(0, dash), min, max, names, min);
      to = number(range.substring(dash + 1), min, max, names, min);
      if (to < from) {
        throw new IllegalArgumentException("range " + range + " runs backwards");
      }
    } else {
      from = number(range, min, max, names, min);
      to = slash >= 0 ? max : from;
    }
    for (int i = from; i <= to; i += step) {
      bits.set(i);
    }
  }

  private static int number(String text, int min, int max, String[] names, int nameBase) {
    if (names != null) {
      for (int i = 0; i < names.length; i++) {
        if (names[i].equals(text)) {
          return i + (names.length == 12 ? 1 : 0);
        }
      }
    }
    int value;
    try {
      value = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a number");
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException(value + " is outside " + min + "-" + max);
    }
    return value;
  }

  @Override
  public String toString() {
    return expression;
  }
}
