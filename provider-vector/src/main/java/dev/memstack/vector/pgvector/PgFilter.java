package dev.memstack.vector.pgvector;

import dev.memstack.vector.store.FilterWalker;
import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * Turns a filter expression into a SQL condition on the store's real columns ({@code agent = ? AND
 * (owner = ? OR scope IN (?, ?))}), with bind parameters, so PostgreSQL plans it on the btree
 * indexes. Never concatenates a value into the SQL text.
 */
final class PgFilter extends FilterWalker<PgFilter.Sql> {

  /**
   * Oldest and newest instants PostgreSQL's {@code timestamptz} holds comfortably (years 1-9999).
   */
  static final long MIN_MILLIS = -62_135_596_800_000L;

  static final long MAX_MILLIS = 253_402_300_799_999L;

  private static final PgFilter INSTANCE = new PgFilter();

  /** A SQL condition and its parameters, in order. */
  record Sql(String text, List<?> params) {

    static final Sql TRUE = new Sql("TRUE", List.of());

    Sql {
      params = List.copyOf(params);
    }
  }

  /** The condition for {@code expression}; {@code TRUE} for {@code null}. */
  static Sql where(Filter.Expression expression) {
    return expression == null ? Sql.TRUE : INSTANCE.walk(expression);
  }

  /** The column that holds a filter key. */
  static String column(String key) {
    return switch (key) {
      case MemoryVectorStore.ID -> "id";
      case MemoryVectorStore.AGENT -> "agent";
      case MemoryVectorStore.OWNER -> "owner";
      case MemoryVectorStore.SCOPE -> "scope";
      case MemoryVectorStore.STATUS -> "status";
      case MemoryVectorStore.TYPE -> "type";
      case MemoryVectorStore.CONVERSATION -> "conversation";
      case MemoryVectorStore.TURN -> "turn_id";
      case MemoryVectorStore.CREATED_AT -> "created_at";
      default -> throw new IllegalArgumentException("filter key '" + key + "' has no column");
    };
  }

  @Override
  protected Sql anyOf(String key, List<String> values) {
    if (values.size() == 1) {
      return new Sql(column(key) + " = ?", values);
    }
    return new Sql(column(key) + " IN (" + "?, ".repeat(values.size() - 1) + "?)", values);
  }

  @Override
  protected Sql createdBetween(long fromMillis, long toMillis) {
    List<String> parts = new ArrayList<>(2);
    List<Object> params = new ArrayList<>(2);
    if (fromMillis > MIN_MILLIS) {
      parts.add("created_at >= ?");
      params.add(timestamp(Math.min(fromMillis, MAX_MILLIS)));
    }
    if (toMillis < MAX_MILLIS) {
      parts.add("created_at <= ?");
      params.add(timestamp(Math.max(toMillis, MIN_MILLIS)));
    }
    return parts.isEmpty() ? Sql.TRUE : new Sql(String.join(" AND ", parts), params);
  }

  @Override
  protected Sql isNull(String key) {
    return new Sql(column(key) + " IS NULL", List.of());
  }

  @Override
  protected Sql and(Sql left, Sql right) {
    return join(left, "AND", right);
  }

  @Override
  protected Sql or(Sql left, Sql right) {
    return join(left, "OR", right);
  }

  @Override
  protected Sql not(Sql inner) {
    // a NULL column makes the inner condition unknown; "not" must then match (owner != 'x'
    // includes records without an owner)
    return new Sql("NOT COALESCE((" + inner.text() + "), FALSE)", inner.params());
  }

  private static Sql join(Sql left, String op, Sql right) {
    List<Object> params = new ArrayList<>(left.params());
    params.addAll(right.params());
    return new Sql("(" + left.text() + " " + op + " " + right.text() + ")", params);
  }

  /** A {@code timestamptz} parameter for epoch millis. */
  static OffsetDateTime timestamp(long millis) {
    return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
  }
}
