package dev.memstack.host.stack;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallRequest;
import java.util.Objects;
import java.util.Set;

/**
 * A context call: what the stack should recall for one message.
 *
 * @param agent the agent, never {@code null}
 * @param owner the end user the recall is for; {@code null} recalls only TEAM and GLOBAL memory
 * @param conversationId the conversation; {@code null} when unknown
 * @param query the text to recall for, never {@code null}, may be blank
 * @param limit the most recall items in the answer, 1 to {@value RecallRequest#MAX_LIMIT}; {@code
 *     0} means the configured default ({@code memstack.stack.context.default-limit})
 * @param explain whether each item keeps the provider's ranking signals in its metadata
 * @param providers the provider instances (ids) to recall from, {@code null} for every enabled one;
 *     the system and owner prompts come from every provider either way
 */
public record ContextQuery(
    AgentId agent,
    OwnerKey owner,
    String conversationId,
    String query,
    int limit,
    boolean explain,
    Set<String> providers) {

  /** A query that recalls from every enabled provider. */
  public ContextQuery(
      AgentId agent,
      OwnerKey owner,
      String conversationId,
      String query,
      int limit,
      boolean explain) {
    this(agent, owner, conversationId, query, limit, explain, null);
  }

  public ContextQuery {
    if (providers != null) {
      if (providers.isEmpty()) {
        throw new IllegalArgumentException("providers must name at least one provider instance");
      }
      for (String id : providers) {
        if (id == null || id.isBlank()) {
          throw new IllegalArgumentException("providers must not hold a blank id");
        }
      }
      providers = Set.copyOf(providers);
    }
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(query, "query");
    if (query.length() > RecallRequest.MAX_QUERY_LENGTH) {
      throw new IllegalArgumentException(
          "query is longer than "
              + RecallRequest.MAX_QUERY_LENGTH
              + " characters ("
              + query.length()
              + ")");
    }
    if (limit < 0 || limit > RecallRequest.MAX_LIMIT) {
      throw new IllegalArgumentException(
          "limit must be 1-" + RecallRequest.MAX_LIMIT + " (or 0 for the default), got: " + limit);
    }
  }

  /** A query with the default limit and no explanation. */
  public static ContextQuery of(AgentId agent, OwnerKey owner, String query) {
    return new ContextQuery(agent, owner, null, query, 0, false);
  }
}
