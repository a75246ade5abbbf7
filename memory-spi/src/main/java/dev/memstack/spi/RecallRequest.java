package dev.memstack.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * One per-turn recall: what {@code owner} needs from {@code agent}'s memory for {@code query}.
 *
 * <p>A provider returns only memory the owner may see: the owner's own {@link Scope#PERSONAL}
 * memory of this agent, the agent's {@link Scope#TEAM} memory and {@link Scope#GLOBAL} memory. With
 * no owner ({@code owner == null}) only TEAM and GLOBAL memory may be returned.
 *
 * @param agent the agent, never {@code null}
 * @param owner the end user the recall is for; {@code null} when the caller has none
 * @param conversationId the conversation the query comes from; {@code null} when unknown
 * @param query the text to recall for (usually the user's message), never {@code null}, may be
 *     blank
 * @param limit the most items the provider should return, 1 to {@value #MAX_LIMIT}
 * @param deadline when the host stops waiting; a provider should give up before it, never {@code
 *     null}
 * @param vectors whether the host scores the items itself: a provider that holds an item's vector
 *     of the host's model should then attach it ({@link RecallItem#withVector}); when {@code false}
 *     (the default) no vector is looked at, so a provider need not read any. Since 0.4.0.
 * @param preview whether the recall is only looked at, not used: an admin previews what a context
 *     call would recall (the host's recall preview). The provider must then answer as it would
 *     otherwise and change nothing a later call reads: no recall log, access count, last-recalled
 *     time or weight bump, however it would track a normal recall. {@code false} (the default) is a
 *     normal recall. Since 0.5.0.
 */
public record RecallRequest(
    AgentId agent,
    OwnerKey owner,
    String conversationId,
    String query,
    int limit,
    Instant deadline,
    boolean vectors,
    boolean preview) {

  /** A request that asks for no vectors (the form of SPI 0.1 to 0.3). */
  public RecallRequest(
      AgentId agent,
      OwnerKey owner,
      String conversationId,
      String query,
      int limit,
      Instant deadline) {
    this(agent, owner, conversationId, query, limit, deadline, false, false);
  }

  /** A normal recall, not a preview (the form of SPI 0.4). */
  public RecallRequest(
      AgentId agent,
      OwnerKey owner,
      String conversationId,
      String query,
      int limit,
      Instant deadline,
      boolean vectors) {
    this(agent, owner, conversationId, query, limit, deadline, vectors, false);
  }

  /** Largest accepted {@link #limit()}. */
  public static final int MAX_LIMIT = 200;

  /** Longest accepted query, in characters. */
  public static final int MAX_QUERY_LENGTH = 32_768;

  /**
   * @throws IllegalArgumentException if a field is out of range
   * @throws NullPointerException if {@code agent}, {@code query} or {@code deadline} is null
   */
  public RecallRequest {
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(deadline, "deadline");
    Validation.requireText(query, "query", MAX_QUERY_LENGTH);
    if (conversationId != null) {
      Conversations.check(conversationId);
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be 1-" + MAX_LIMIT + ", got: " + limit);
    }
  }

  /** A request with no conversation, a limit of 10 and a deadline one second from now. */
  public static RecallRequest of(AgentId agent, OwnerKey owner, String query) {
    return new RecallRequest(agent, owner, null, query, 10, Instant.now().plusSeconds(1));
  }

  /** A copy with another limit. */
  public RecallRequest withLimit(int newLimit) {
    return new RecallRequest(
        agent, owner, conversationId, query, newLimit, deadline, vectors, preview);
  }

  /**
   * A copy that asks for the items' vectors, or not.
   *
   * @since 0.4.0
   */
  public RecallRequest withVectors(boolean wanted) {
    return new RecallRequest(agent, owner, conversationId, query, limit, deadline, wanted, preview);
  }

  /**
   * A copy that is a preview (changes nothing), or a normal recall.
   *
   * @since 0.5.0
   */
  public RecallRequest asPreview(boolean wanted) {
    return new RecallRequest(agent, owner, conversationId, query, limit, deadline, vectors, wanted);
  }

  /**
   * Whether an item of {@code scope} owned by {@code itemOwner} may be returned for this request.
   */
  public boolean maySee(Scope scope, OwnerKey itemOwner) {
    return switch (scope) {
      case TEAM, GLOBAL -> true;
      case PERSONAL -> owner != null && owner.equals(itemOwner);
    };
  }
}
