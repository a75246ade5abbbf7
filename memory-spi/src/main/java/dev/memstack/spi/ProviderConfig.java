package dev.memstack.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A read-only, typed view of one provider instance's {@code config.*} settings. Keys are kebab case
 * ({@code base-url}); a parse error names the full key ({@code <prefix>.<key>}). Immutable and
 * thread-safe.
 */
public final class ProviderConfig {

  private final String prefix;
  private final Map<String, String> values;

  private ProviderConfig(String prefix, Map<String, String> values) {
    this.prefix = Objects.requireNonNull(prefix, "prefix");
    this.values = Collections.unmodifiableMap(new TreeMap<>(values));
  }

  /**
   * A view of {@code values}, whose keys are reported in errors as {@code <prefix>.<key>}.
   *
   * @param prefix e.g. {@code memstack.providers.vector.config}
   * @param values the settings, copied
   */
  public static ProviderConfig of(String prefix, Map<String, String> values) {
    return new ProviderConfig(prefix, values);
  }

  /** An empty configuration. */
  public static ProviderConfig empty(String prefix) {
    return new ProviderConfig(prefix, Map.of());
  }

  /** The full key for {@code key}, as used in error messages. */
  public String fullKey(String key) {
    return prefix.isEmpty() ? key : prefix + "." + key;
  }

  /** Every key that is set. */
  public Set<String> keys() {
    return values.keySet();
  }

  /** All settings as an unmodifiable sorted map. */
  public Map<String, String> asMap() {
    return values;
  }

  /** The value of {@code key}, trimmed; empty when unset or blank. */
  public Optional<String> string(String key) {
    String value = values.get(key);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  public String string(String key, String fallback) {
    return string(key).orElse(fallback);
  }

  /** The value of {@code key}; throws naming the key when unset. */
  public String required(String key) {
    return string(key).orElseThrow(() -> new ProviderConfigException(fullKey(key), "is required"));
  }

  public int integer(String key, int fallback) {
    return string(key).map(v -> parse(key, v, Integer::parseInt, "an integer")).orElse(fallback);
  }

  /** An integer within {@code [min, max]}. */
  public int integer(String key, int fallback, int min, int max) {
    int value = integer(key, fallback);
    if (value < min || value > max) {
      throw new ProviderConfigException(
          fullKey(key), "must be between " + min + " and " + max + ", got " + value);
    }
    return value;
  }

  public long longValue(String key, long fallback) {
    return string(key).map(v -> parse(key, v, Long::parseLong, "an integer")).orElse(fallback);
  }

  public double decimal(String key, double fallback) {
    return string(key).map(v -> parse(key, v, Double::parseDouble, "a number")).orElse(fallback);
  }

  /**
   * A number within {@code [min, max]} (NaN is in no range); the message shows whole bounds without
   * a fraction ({@code between 0 and 1}).
   *
   * @since 0.5.0
   */
  public double decimal(String key, double fallback, double min, double max) {
    double value = decimal(key, fallback);
    if (!(value >= min && value <= max)) {
      throw new ProviderConfigException(
          fullKey(key), "must be between " + bound(min) + " and " + bound(max) + ", got " + value);
    }
    return value;
  }

  private static String bound(double bound) {
    return bound == Math.rint(bound) && Math.abs(bound) < 1e15
        ? Long.toString((long) bound)
        : Double.toString(bound);
  }

  public boolean bool(String key, boolean fallback) {
    return string(key)
        .map(
            v -> {
              String s = v.toLowerCase(Locale.ROOT);
              if (s.equals("true")) {
                return true;
              }
              if (s.equals("false")) {
                return false;
              }
              throw new ProviderConfigException(fullKey(key), "must be true or false, got " + v);
            })
        .orElse(fallback);
  }

  /**
   * A duration: {@code 250ms}, {@code 3s}, {@code 5m}, {@code 1h}, a plain number of milliseconds,
   * or ISO-8601 ({@code PT3S}).
   */
  public Duration duration(String key, Duration fallback) {
    return string(key).map(v -> parseDuration(key, v)).orElse(fallback);
  }

  /**
   * A {@link #duration(String, Duration) duration} above zero.
   *
   * @since 0.5.0
   */
  public Duration positiveDuration(String key, Duration fallback) {
    Duration value = duration(key, fallback);
    if (value.isNegative() || value.isZero()) {
      throw new ProviderConfigException(fullKey(key), "must be positive, got " + value);
    }
    return value;
  }

  /**
   * A {@link #duration(String, Duration) duration} of zero or more.
   *
   * @since 0.5.0
   */
  public Duration nonNegativeDuration(String key, Duration fallback) {
    Duration value = duration(key, fallback);
    if (value.isNegative()) {
      throw new ProviderConfigException(fullKey(key), "must not be negative");
    }
    return value;
  }

  /** An enum constant by name, in any case, with {@code -} read as {@code _}. */
  public <E extends Enum<E>> E enumValue(String key, Class<E> type, E fallback) {
    Optional<String> value = string(key);
    if (value.isEmpty()) {
      return fallback;
    }
    String name = value.get().replace('-', '_').toUpperCase(Locale.ROOT);
    for (E constant : type.getEnumConstants()) {
      if (constant.name().equals(name)) {
        return constant;
      }
    }
    StringBuilder accepted = new StringBuilder();
    for (E constant : type.getEnumConstants()) {
      if (accepted.length() > 0) {
        accepted.append(", ");
      }
      accepted.append(constant.name().toLowerCase(Locale.ROOT).replace('_', '-'));
    }
    throw new ProviderConfigException(
        fullKey(key), "must be one of " + accepted + ", got " + value.get());
  }

  private Duration parseDuration(String key, String v) {
    String s = v.toLowerCase(Locale.ROOT);
    try {
      if (s.startsWith("pt") || s.startsWith("p")) {
        return Duration.parse(v.toUpperCase(Locale.ROOT));
      }
      if (s.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2).trim()));
      }
      if (s.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1).trim()));
      }
      if (s.endsWith("m")) {
        return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1).trim()));
      }
      if (s.endsWith("h")) {
        return Duration.ofHours(Long.parseLong(s.substring(0, s.length() - 1).trim()));
      }
      return Duration.ofMillis(Long.parseLong(s));
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new ProviderConfigException(
          fullKey(key), "must be a duration such as 500ms, 3s or 5m, got " + v);
    }
  }

  private <T> T parse(
      String key, String v, java.util.function.Function<String, T> parser, String what) {
    try {
      return parser.apply(v);
    } catch (NumberFormatException e) {
      throw new ProviderConfigException(fullKey(key), "must be " + what + ", got " + v);
    }
  }

  @Override
  public String toString() {
    return "ProviderConfig[" + prefix + ", keys=" + values.keySet() + "]";
  }
}
