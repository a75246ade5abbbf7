package dev.memstack.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/**
 * The body of {@code POST /api/v1/agents/{agentId}/memory/context}.
 *
 * @param ownerKey whose personal memory may be recalled ({@code user:42}); required
 * @param conversationId the conversation the message belongs to; {@code null} for none
 * @param query the text to recall for, usually the user's message; may be empty, never {@code null}
 * @param limit most recall items, 1-200; {@code 0} means the host's default
 * @param explain whether each item keeps its ranking signals in {@code metadata}
 * @param providers the provider instances to recall from ({@code ["vector"]}); {@code null} for
 *     every enabled one. The others are reported {@code skipped}.
 * @param morningCard {@code true} asks for the owner's morning card, which the host adds to the
 *     owner's first such call of the day ({@link ContextAnswer#morningCard()}); {@code null} or
 *     {@code false} for none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ContextRequest(
    String ownerKey,
    String conversationId,
    String query,
    int limit,
    boolean explain,
    List<String> providers,
    Boolean morningCard) {

  /** A request that recalls from every enabled provider. */
  public ContextRequest(
      String ownerKey, String conversationId, String query, int limit, boolean explain) {
    this(ownerKey, conversationId, query, limit, explain, null, null);
  }

  /** A request without the morning card. */
  public ContextRequest(
      String ownerKey,
      String conversationId,
      String query,
      int limit,
      boolean explain,
      List<String> providers) {
    this(ownerKey, conversationId, query, limit, explain, providers, null);
  }

  /** The host's longest query, in characters. */
  public static final int MAX_QUERY_LENGTH = 32_768;

  public ContextRequest {
    Objects.requireNonNull(ownerKey, "ownerKey");
    Objects.requireNonNull(query, "query");
    if (limit < 0 || limit > 200) {
      throw new IllegalArgumentException(
          "limit must be 0 (the host's default) to 200, got: " + limit);
    }
    if (providers != null) {
      if (providers.isEmpty()) {
        throw new IllegalArgumentException("providers must name at least one provider instance");
      }
      providers = List.copyOf(providers);
    }
  }

  /** A request with the host's default limit and no explanation. */
  public static ContextRequest of(String ownerKey, String conversationId, String query) {
    return new ContextRequest(ownerKey, conversationId, query, 0, false);
  }

  /** A copy with another limit. */
  public ContextRequest withLimit(int newLimit) {
    return new ContextRequest(
        ownerKey, conversationId, query, newLimit, explain, providers, morningCard);
  }

  /** A copy that asks for the owner's morning card on their first call of the day. */
  public ContextRequest withMorningCard() {
    return new ContextRequest(ownerKey, conversationId, query, limit, explain, providers, true);
  }

  /** A copy that recalls from {@code ids} only. */
  public ContextRequest withProviders(String... ids) {
    return new ContextRequest(
        ownerKey, conversationId, query, limit, explain, List.of(ids), morningCard);
  }
}
