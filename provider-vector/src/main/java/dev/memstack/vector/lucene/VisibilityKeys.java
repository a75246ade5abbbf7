package dev.memstack.vector.lucene;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryVectorStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.ai.vectorstore.filter.Filter;
import org.springframework.ai.vectorstore.filter.Filter.ExpressionType;

/**
 * One keyword a record ({@value #FIELD}) that says who may see it, so that the visibility filter
 * {@link MemoryFilters#visibleTo} (six term queries over agent, scope and owner) is a lookup of at
 * most three terms: {@code GLOBAL} for a GLOBAL record, {@code TEAM␟<agent>} for a TEAM record and
 * {@code PERSONAL␟<agent>␟<owner>} for a PERSONAL one; any other record gets {@value #NONE}, which
 * the filter never asks for. A record whose agent or owner holds the separator gets no key at all,
 * and neither does one written before the key existed: a segment where some document lacks the key
 * is filtered the old way ({@link VisibilityQuery}).
 */
final class VisibilityKeys {

  static final String FIELD = "_visibility";
  static final String NONE = "-";

  private static final char SEPARATOR = '\u001f';
  private static final String GLOBAL = Scope.GLOBAL.name();
  private static final String TEAM = Scope.TEAM.name();
  private static final String PERSONAL = Scope.PERSONAL.name();

  private VisibilityKeys() {}

  /** The key of a record with these string metadata; {@code null} when it cannot have one. */
  static String of(Map<String, Object> metadata) {
    Object scope = metadata.get(MemoryVectorStore.SCOPE);
    Object agent = metadata.get(MemoryVectorStore.AGENT);
    Object owner = metadata.get(MemoryVectorStore.OWNER);
    if (separated(agent) || separated(owner)) {
      return null;
    }
    if (scope == null) {
      return NONE;
    }
    String s = scope.toString();
    if (s.equals(GLOBAL)) {
      return GLOBAL;
    }
    if (s.equals(TEAM) && agent != null) {
      return team(agent.toString());
    }
    if (s.equals(PERSONAL) && agent != null && owner != null) {
      return personal(agent.toString(), owner.toString());
    }
    return NONE;
  }

  private static boolean separated(Object value) {
    return value != null && value.toString().indexOf(SEPARATOR) >= 0;
  }

  private static String team(String agent) {
    return TEAM + SEPARATOR + agent;
  }

  private static String personal(String agent, String owner) {
    return PERSONAL + SEPARATOR + agent + SEPARATOR + owner;
  }

  /**
   * The keys a record must have to pass {@code filter} when it is exactly {@link
   * MemoryFilters#visibleTo}{@code (agent, owner)}; {@code null} for any other filter.
   */
  static List<String> keysOf(Filter.Expression filter) {
    String agent = agentOf(filter);
    if (agent == null) {
      return null;
    }
    String owner = ownerOf(filter);
    Filter.Expression expected;
    try {
      expected =
          MemoryFilters.visibleTo(AgentId.of(agent), owner == null ? null : OwnerKey.of(owner));
    } catch (IllegalArgumentException e) {
      return null;
    }
    if (!expected.equals(filter) || agent.indexOf(SEPARATOR) >= 0) {
      return null;
    }
    List<String> keys = new ArrayList<>(3);
    if (owner != null) {
      if (owner.indexOf(SEPARATOR) >= 0) {
        return null;
      }
      keys.add(personal(agent, owner));
    }
    keys.add(team(agent));
    keys.add(GLOBAL);
    return keys;
  }

  /** {@code a} of {@code (agent = a AND ...) OR ...}, else {@code null}. */
  private static String agentOf(Filter.Expression filter) {
    Filter.Expression ofAgent = operand(filter, true, ExpressionType.AND);
    return ofAgent == null ? null : eqValue(ofAgent.left(), MemoryVectorStore.AGENT);
  }

  /** {@code o} of {@code (... AND ((... AND owner = o) OR ...)) OR ...}, else {@code null}. */
  private static String ownerOf(Filter.Expression filter) {
    Filter.Expression ofAgent = operand(filter, true, ExpressionType.AND);
    Filter.Expression scopes = ofAgent == null ? null : operand(ofAgent, false, ExpressionType.OR);
    Filter.Expression personal = scopes == null ? null : operand(scopes, true, ExpressionType.AND);
    return personal == null ? null : eqValue(personal.right(), MemoryVectorStore.OWNER);
  }

  /** The left or right operand of {@code expression} when it is an expression of {@code type}. */
  private static Filter.Expression operand(
      Filter.Expression expression, boolean left, ExpressionType type) {
    Filter.Operand operand = left ? expression.left() : expression.right();
    return operand instanceof Filter.Expression e && e.type() == type ? e : null;
  }

  /** {@code v} when {@code operand} is {@code key = v} with a text {@code v}. */
  private static String eqValue(Filter.Operand operand, String key) {
    if (operand instanceof Filter.Expression e
        && e.type() == ExpressionType.EQ
        && e.left() instanceof Filter.Key k
        && k.key().equals(key)
        && e.right() instanceof Filter.Value v
        && v.value() instanceof String s) {
      return s;
    }
    return null;
  }
}
