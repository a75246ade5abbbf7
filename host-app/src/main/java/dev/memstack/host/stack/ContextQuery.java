package dev.memstack.host.stack;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallRequest;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * A context call: what the stack should recall for one message. Checked here, once, field by field
 * ({@link InvalidRequestException} names the field as the REST body and the MCP tool spell it); the
 * stack checks only what needs the running providers (that every id of {@code providers} is a
 * configured provider instance).
 *
 * @param agent the agent, never {@code null}
 * @param owner the end user the recall is for; {@code null} recalls only TEAM and GLOBAL memory
 * @param conversationId the conversation (1-128 characters, no control characters or slashes);
 *     {@code null} when unknown
 * @param query the text to recall for, never {@code null}, may be blank, at most {@value
 *     RecallRequest#MAX_QUERY_LENGTH} characters
 * @param limit the most recall items in the answer, 1 to {@value RecallRequest#MAX_LIMIT}; {@code
 *     0} means the configured default ({@code memstack.stack.context.default-limit})
 * @param explain whether each item keeps the provider's ranking signals in its metadata
 * @param providers the provider instances (ids, at most {@value #MAX_PROVIDERS}) to recall from,
 *     {@code null} for every enabled one; the system and owner prompts come from every provider
 *     either way
 * @param window whether the answer carries the conversation window ({@code window}), computed with
 *     the answer's system and owner prompts and its fenced context in front of the query as the
 *     current message; needs {@code owner} and {@code conversationId}
 * @param morningCard whether the answer carries the owner's morning card when this is the owner's
 *     first context call of the day that asks for it ({@code morningCard}; once per owner and day
 *     across hosts); needs {@code owner}
 */
public record ContextQuery(
    AgentId agent,
    OwnerKey owner,
    String conversationId,
    String query,
    int limit,
    boolean explain,
    Set<String> providers,
    boolean window,
    boolean morningCard) {

  /** Most provider ids one context call may name. */
  public static final int MAX_PROVIDERS = 64;

  /** A query that recalls from every enabled provider. */
  public ContextQuery(
      AgentId agent,
      OwnerKey owner,
      String conversationId,
      String query,
      int limit,
      boolean explain) {
    this(agent, owner, conversationId, query, limit, explain, null, false, false);
  }

  public ContextQuery {
    Objects.requireNonNull(agent, "agent");
    if (conversationId != null) {
      RequestChecks.id("conversationId", conversationId);
    }
    RequestChecks.text("query", query, RecallRequest.MAX_QUERY_LENGTH);
    if (limit < 0 || limit > RecallRequest.MAX_LIMIT) {
      throw new InvalidRequestException(
          "limit",
          "limit must be 1-" + RecallRequest.MAX_LIMIT + " (or 0 for the default), got: " + limit);
    }
    if (providers != null) {
      if (providers.isEmpty() || providers.size() > MAX_PROVIDERS) {
        throw new InvalidRequestException(
            "providers",
            "providers must name 1-"
                + MAX_PROVIDERS
                + " provider instances, got "
                + providers.size());
      }
      for (String id : providers) {
        if (id == null || id.isBlank()) {
          throw new InvalidRequestException("providers", "providers must not hold a blank id");
        }
      }
      providers = Set.copyOf(new LinkedHashSet<>(providers));
    }
    if (window && conversationId == null) {
      throw new InvalidRequestException(
          "conversationId", "window needs the conversationId of the conversation");
    }
    if (morningCard && owner == null) {
      throw new InvalidRequestException(
          "ownerKey", "morningCard needs the ownerKey whose card it is");
    }
    if (window && owner == null) {
      throw new InvalidRequestException(
          "ownerKey", "window needs the ownerKey whose conversation it is");
    }
  }

  /** A query with the default limit and no explanation. */
  public static ContextQuery of(AgentId agent, OwnerKey owner, String query) {
    return new ContextQuery(agent, owner, null, query, 0, false);
  }
}
