package dev.memstack.vector.store;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.TreeSet;
import org.springframework.ai.vectorstore.filter.Filter;
import org.springframework.ai.vectorstore.filter.Filter.ExpressionType;

/**
 * Translates a Spring AI filter expression over {@link MemoryVectorStore#FILTER_KEYS} into a
 * store's own query form, so that every store accepts the same filters with the same meaning.
 * Checks keys and value types (an error names the key), unwraps groups and reduces every operator
 * to six primitives: {@code NE} becomes {@code not(anyOf)}, {@code NIN} {@code not(anyOf)}, {@code
 * ISNOTNULL} {@code not(isNull)}, and comparisons on {@link MemoryVectorStore#CREATED_AT} an
 * inclusive millisecond range.
 *
 * <p>{@link #not} must treat an unknown (missing) value as "does not match" inside, so that {@code
 * owner != 'x'} also matches records without an owner (in SQL: {@code NOT COALESCE(inner, FALSE)}).
 *
 * @param <T> the store's query type
 */
public abstract class FilterWalker<T> {

  /** The string key equals one of the values (at least one value). */
  protected abstract T anyOf(String key, List<String> values);

  /** {@link MemoryVectorStore#CREATED_AT} is within {@code [fromMillis, toMillis]}. */
  protected abstract T createdBetween(long fromMillis, long toMillis);

  /** The record has no value for the string key. */
  protected abstract T isNull(String key);

  protected abstract T and(T left, T right);

  protected abstract T or(T left, T right);

  protected abstract T not(T inner);

  /** Translates {@code expression}, which must not be {@code null}. */
  public final T walk(Filter.Expression expression) {
    ExpressionType type = expression.type();
    switch (type) {
      case AND:
        return and(operand(expression.left()), operand(expression.right()));
      case OR:
        return or(operand(expression.left()), operand(expression.right()));
      case NOT:
        return not(operand(expression.left()));
      case ISNULL:
      case ISNOTNULL:
        {
          String key = stringKey(expression, type);
          T isNull = isNull(key);
          return type == ExpressionType.ISNULL ? isNull : not(isNull);
        }
      default:
        return comparison(expression);
    }
  }

  private T operand(Filter.Operand operand) {
    if (operand instanceof Filter.Expression expression) {
      return walk(expression);
    }
    if (operand instanceof Filter.Group group) {
      return walk(group.content());
    }
    throw new IllegalArgumentException(
        "filter: expected an expression, got " + (operand == null ? "nothing" : operand));
  }

  private T comparison(Filter.Expression expression) {
    ExpressionType type = expression.type();
    String key = key(expression);
    Object value = value(expression, key);
    if (key.equals(MemoryVectorStore.CREATED_AT)) {
      return switch (type) {
        case EQ -> createdBetween(millis(value), millis(value));
        case NE -> not(createdBetween(millis(value), millis(value)));
        case GT -> createdBetween(Math.addExact(millis(value), 1), Long.MAX_VALUE);
        case GTE -> createdBetween(millis(value), Long.MAX_VALUE);
        case LT -> createdBetween(Long.MIN_VALUE, Math.subtractExact(millis(value), 1));
        case LTE -> createdBetween(Long.MIN_VALUE, millis(value));
        case IN -> anyTime(values(value, key));
        case NIN -> not(anyTime(values(value, key)));
        default -> throw unsupported(type, key);
      };
    }
    return switch (type) {
      case EQ -> anyOf(key, List.of(text(value, key)));
      case NE -> not(anyOf(key, List.of(text(value, key))));
      case IN -> anyOf(key, texts(value, key));
      case NIN -> not(anyOf(key, texts(value, key)));
      default -> throw unsupported(type, key);
    };
  }

  private T anyTime(List<?> values) {
    T result = null;
    for (Object value : values) {
      long at = millis(value);
      T one = createdBetween(at, at);
      result = result == null ? one : or(result, one);
    }
    return result;
  }

  private String stringKey(Filter.Expression expression, ExpressionType type) {
    String key = key(expression);
    if (key.equals(MemoryVectorStore.CREATED_AT)) {
      throw unsupported(type, key);
    }
    return key;
  }

  private static String key(Filter.Expression expression) {
    if (!(expression.left() instanceof Filter.Key k)) {
      throw new IllegalArgumentException(
          "filter: " + expression.type() + " needs a key on its left, got " + expression.left());
    }
    String key = k.key();
    // the text parser keeps quotes around quoted keys
    if (key.length() >= 2
        && (key.startsWith("'") && key.endsWith("'")
            || key.startsWith("\"") && key.endsWith("\""))) {
      key = key.substring(1, key.length() - 1);
    }
    if (!MemoryVectorStore.FILTER_KEYS.contains(key)) {
      throw new IllegalArgumentException(
          "filter key '"
              + key
              + "' cannot be filtered on; filterable keys: "
              + new TreeSet<>(MemoryVectorStore.FILTER_KEYS));
    }
    return key;
  }

  private static Object value(Filter.Expression expression, String key) {
    if (!(expression.right() instanceof Filter.Value v) || v.value() == null) {
      throw new IllegalArgumentException(
          "filter key '" + key + "': " + expression.type() + " needs a value");
    }
    return v.value();
  }

  private static List<?> values(Object value, String key) {
    if (value instanceof Collection<?> c && !c.isEmpty()) {
      return new ArrayList<>(c);
    }
    if (value instanceof Object[] array && array.length > 0) {
      return List.of(array);
    }
    throw new IllegalArgumentException("filter key '" + key + "': IN/NIN need a non-empty list");
  }

  private static List<String> texts(Object value, String key) {
    List<String> out = new ArrayList<>();
    for (Object v : values(value, key)) {
      out.add(text(v, key));
    }
    return out;
  }

  private static String text(Object value, String key) {
    if (value instanceof CharSequence s) {
      return s.toString();
    }
    if (value instanceof Enum<?> e) {
      return e.name();
    }
    if (value instanceof java.util.UUID
        || value instanceof dev.memstack.spi.OwnerKey
        || value instanceof dev.memstack.spi.AgentId) {
      return value.toString();
    }
    throw new IllegalArgumentException(
        "filter key '" + key + "' takes text values, got " + value.getClass().getSimpleName());
  }

  /**
   * Epoch millis of a {@link MemoryVectorStore#CREATED_AT} filter value: a number of millis, an
   * {@link Instant}, a {@link Date}, or text as an ISO instant or an ISO date (start of day, UTC).
   */
  public static long millis(Object value) {
    if (value instanceof Number n) {
      return n.longValue();
    }
    if (value instanceof Instant i) {
      return i.toEpochMilli();
    }
    if (value instanceof Date d) {
      return d.getTime();
    }
    if (value instanceof CharSequence s) {
      String text = s.toString().trim();
      try {
        if (text.length() == 10) {
          return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        }
        return Instant.parse(text).toEpochMilli();
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            "filter key '"
                + MemoryVectorStore.CREATED_AT
                + "' needs epoch millis, an ISO instant or an ISO date, got '"
                + text
                + "'");
      }
    }
    throw new IllegalArgumentException(
        "filter key '"
            + MemoryVectorStore.CREATED_AT
            + "' needs epoch millis, an ISO instant or an ISO date, got "
            + (value == null ? "null" : value.getClass().getSimpleName()));
  }

  private static IllegalArgumentException unsupported(ExpressionType type, String key) {
    return new IllegalArgumentException(
        "filter key '" + key + "' does not support the " + type + " operator");
  }
}
