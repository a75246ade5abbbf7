package dev.memstack.vector.pgvector;

import dev.memstack.spi.Scope;
import dev.memstack.vector.store.FilterWalker;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * Turns a filter expression into a SQL condition on the store's real columns ({@code agent = ? AND
 * (owner = ? OR scope IN ('TEAM', 'GLOBAL'))}), with bind parameters, so PostgreSQL plans it on the
 * btree indexes. Values are bound as parameters, except the names of the fixed scopes and statuses
 * ({@link Scope}, {@link MemoryStatus}), which are written into the text as literals: the text of
 * one kind of filter is then the same for every owner, so a prepared statement's generic plan
 * serves them all, and that plan still sees the scope and status it reads (a {@code TEAM} branch is
 * a few rows, not a third of the table). Nothing but those names is ever written into the SQL.
 */
final class PgFilter extends FilterWalker<PgFilter.Sql> {

  /**
   * Oldest and newest instants PostgreSQL's {@code timestamptz} holds comfortably (years 1-9999).
   */
  static final long MIN_MILLIS = -62_135_596_800_000L;

  static final long MAX_MILLIS = 253_402_300_799_999L;

  private static final PgFilter INSTANCE = new PgFilter();

  /**
   * A SQL condition and its parameters, in order; {@code scopes}: the scopes a record it matches
   * can have, when the condition says ({@code null}: any).
   */
  record Sql(String text, List<?> params, Set<String> scopes) {

    static final Sql TRUE = new Sql("TRUE", List.of());

    Sql {
      params = List.copyOf(params);
      scopes = scopes == null ? null : Set.copyOf(scopes);
    }

    Sql(String text, List<?> params) {
      this(text, params, null);
    }
  }

  /**
   * Whether no record can match two of {@code conditions}: each restricts the scope, to scopes no
   * other one allows (the prefetch filter's branches: {@code PERSONAL}, {@code TEAM}, {@code
   * GLOBAL}).
   */
  static boolean disjoint(List<Sql> conditions) {
    Set<String> seen = new HashSet<>();
    for (Sql condition : conditions) {
      if (condition.scopes() == null) {
        return false;
      }
      for (String scope : condition.scopes()) {
        if (!seen.add(scope)) {
          return false;
        }
      }
    }
    return true;
  }

  /** The condition for {@code expression}; {@code TRUE} for {@code null}. */
  static Sql where(Filter.Expression expression) {
    return expression == null ? Sql.TRUE : INSTANCE.walk(expression);
  }

  /**
   * {@code expression} as a disjunction of conjunctions ({@code (a AND b) OR (c AND d)}), one
   * condition for each, so that each can be planned on its own index (an index-only scan cannot
   * serve an {@code OR} of conditions on different columns). The union of the records each branch
   * matches is what {@code expression} matches ({@code AND} distributes over {@code OR} in SQL's
   * three-valued logic too; a {@code NOT} stays one condition). A single branch when there is
   * nothing to split ({@code TRUE} for {@code null}); empty when the expansion would yield more
   * than {@code max} branches.
   */
  static List<Sql> branches(Filter.Expression expression, int max) {
    if (expression == null) {
      return List.of(Sql.TRUE);
    }
    Node node = new Dnf(max).walk(expression);
    return node.branches() == null ? List.of() : node.branches();
  }

  /** A condition and its branches, {@code null} when there are too many. */
  private record Node(Sql whole, List<Sql> branches) {

    static Node atom(Sql sql) {
      return new Node(sql, List.of(sql));
    }
  }

  private static final class Dnf extends FilterWalker<Node> {

    private final int max;

    Dnf(int max) {
      this.max = max;
    }

    @Override
    protected Node anyOf(String key, List<String> values) {
      return Node.atom(INSTANCE.anyOf(key, values));
    }

    @Override
    protected Node createdBetween(long fromMillis, long toMillis) {
      return Node.atom(INSTANCE.createdBetween(fromMillis, toMillis));
    }

    @Override
    protected Node isNull(String key) {
      return Node.atom(INSTANCE.isNull(key));
    }

    @Override
    protected Node and(Node left, Node right) {
      Sql whole = INSTANCE.and(left.whole(), right.whole());
      if (left.branches() == null
          || right.branches() == null
          || (long) left.branches().size() * right.branches().size() > max) {
        return new Node(whole, null);
      }
      List<Sql> branches = new ArrayList<>();
      for (Sql l : left.branches()) {
        for (Sql r : right.branches()) {
          branches.add(INSTANCE.and(l, r));
        }
      }
      return new Node(whole, List.copyOf(branches));
    }

    @Override
    protected Node or(Node left, Node right) {
      Sql whole = INSTANCE.or(left.whole(), right.whole());
      if (left.branches() == null
          || right.branches() == null
          || left.branches().size() + right.branches().size() > max) {
        return new Node(whole, null);
      }
      List<Sql> branches = new ArrayList<>(left.branches());
      branches.addAll(right.branches());
      return new Node(whole, List.copyOf(branches));
    }

    @Override
    protected Node not(Node inner) {
      return Node.atom(INSTANCE.not(inner.whole()));
    }
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

  /** The values written into the SQL text: the names of the scopes and of the statuses. */
  private static final Set<String> LITERALS =
      Stream.concat(
              Arrays.stream(Scope.values()).map(Scope::name),
              Arrays.stream(MemoryStatus.values()).map(MemoryStatus::name))
          .collect(Collectors.toUnmodifiableSet());

  @Override
  protected Sql anyOf(String key, List<String> values) {
    if ((key.equals(MemoryVectorStore.SCOPE) || key.equals(MemoryVectorStore.STATUS))
        && LITERALS.containsAll(values)) {
      // only names from LITERALS (upper-case letters and _), never a caller's free text
      String names = values.stream().map(v -> "'" + v + "'").collect(Collectors.joining(", "));
      return new Sql(
          column(key) + (values.size() == 1 ? " = " + names : " IN (" + names + ")"),
          List.of(),
          key.equals(MemoryVectorStore.SCOPE) ? Set.copyOf(values) : null);
    }
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
    Set<String> scopes;
    if (op.equals("AND")) {
      // both hold: the scopes both allow
      if (left.scopes() == null || right.scopes() == null) {
        scopes = left.scopes() == null ? right.scopes() : left.scopes();
      } else {
        scopes = new HashSet<>(left.scopes());
        scopes.retainAll(right.scopes());
      }
    } else if (left.scopes() == null || right.scopes() == null) {
      scopes = null;
    } else {
      scopes = new HashSet<>(left.scopes());
      scopes.addAll(right.scopes());
    }
    return new Sql("(" + left.text() + " " + op + " " + right.text() + ")", params, scopes);
  }

  /** A {@code timestamptz} parameter for epoch millis. */
  static OffsetDateTime timestamp(long millis) {
    return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
  }
}
