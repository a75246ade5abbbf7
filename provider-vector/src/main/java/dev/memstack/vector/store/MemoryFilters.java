package dev.memstack.vector.store;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import org.springframework.ai.vectorstore.filter.Filter;
import org.springframework.ai.vectorstore.filter.Filter.Expression;
import org.springframework.ai.vectorstore.filter.Filter.ExpressionType;

/** Filter expressions the provider uses, built once here so that every store sees the same ones. */
public final class MemoryFilters {

  private MemoryFilters() {}

  /**
   * What {@code owner} may see of {@code agent}'s memory: the owner's PERSONAL records of the
   * agent, the agent's TEAM records and every GLOBAL record. With no owner, TEAM and GLOBAL only.
   */
  public static Expression visibleTo(AgentId agent, OwnerKey owner) {
    Expression shared = eq(MemoryVectorStore.SCOPE, Scope.TEAM.name());
    Expression ofAgent =
        owner == null
            ? shared
            : or(
                and(
                    eq(MemoryVectorStore.SCOPE, Scope.PERSONAL.name()),
                    eq(MemoryVectorStore.OWNER, owner.value())),
                shared);
    return or(
        and(eq(MemoryVectorStore.AGENT, agent.value()), ofAgent),
        eq(MemoryVectorStore.SCOPE, Scope.GLOBAL.name()));
  }

  /** Records of this owner, every agent. */
  public static Expression ofOwner(OwnerKey owner) {
    return eq(MemoryVectorStore.OWNER, owner.value());
  }

  /** Records in one of these states. */
  public static Expression status(Collection<MemoryStatus> statuses) {
    return in(MemoryVectorStore.STATUS, statuses.stream().map(Enum::name).toList());
  }

  /** Records created at or after {@code from}. */
  public static Expression createdFrom(Instant from) {
    return new Expression(
        ExpressionType.GTE,
        new Filter.Key(MemoryVectorStore.CREATED_AT),
        new Filter.Value(from.toEpochMilli()));
  }

  /** Records created before {@code until}. */
  public static Expression createdBefore(Instant until) {
    return new Expression(
        ExpressionType.LT,
        new Filter.Key(MemoryVectorStore.CREATED_AT),
        new Filter.Value(until.toEpochMilli()));
  }

  public static Expression eq(String key, String value) {
    return new Expression(ExpressionType.EQ, new Filter.Key(key), new Filter.Value(value));
  }

  /** Records whose {@code key} is not {@code value} (or that lack the key). */
  public static Expression ne(String key, String value) {
    return new Expression(ExpressionType.NE, new Filter.Key(key), new Filter.Value(value));
  }

  public static Expression in(String key, List<String> values) {
    return new Expression(ExpressionType.IN, new Filter.Key(key), new Filter.Value(values));
  }

  /** Both; a {@code null} side is left out. */
  public static Expression and(Expression left, Expression right) {
    if (left == null) {
      return right;
    }
    if (right == null) {
      return left;
    }
    return new Expression(ExpressionType.AND, left, right);
  }

  public static Expression or(Expression left, Expression right) {
    return new Expression(ExpressionType.OR, left, right);
  }
}
