package dev.memstack.host.api;

import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.media.Schema.AdditionalPropertiesValue;
import io.swagger.v3.oas.annotations.media.Schema.RequiredMode;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The JSON request bodies of the REST API as records. The controllers read their bodies as JSON
 * trees ({@link JsonBody}), so that every error names its field; these records are the contract
 * those readers implement: the OpenAPI document ({@code /v3/api-docs}) shows them, and a route that
 * refuses unknown fields takes the set of record components as its allowed fields ({@link
 * #fields}), so the document and the check cannot drift apart.
 */
public final class ApiRequests {

  private ApiRequests() {}

  /**
   * The last segment of the request's path: which of the paths of one handler was called (a route
   * such as {@code POST .../{id}/archive}, {@code .../suppress}, {@code .../activate}).
   */
  public static String lastSegment(jakarta.servlet.http.HttpServletRequest request) {
    String uri = request.getRequestURI();
    return uri.substring(uri.lastIndexOf('/') + 1);
  }

  /** The component names of a request record: the fields its route accepts. */
  public static Set<String> fields(Class<? extends Record> type) {
    return Arrays.stream(type.getRecordComponents())
        .map(java.lang.reflect.RecordComponent::getName)
        .collect(Collectors.toUnmodifiableSet());
  }

  private static final String OWNER_KEY =
      "The end user: `system` or `<prefix>:<id>` (`user:42`, `api:end-user-7`), at most 256"
          + " characters. The caller's token must cover it.";

  /** {@code POST /api/v1/agents/{agentId}/memory/context}. */
  @Schema(
      name = "ContextRequest",
      description = "What to recall for one message.",
      additionalProperties = AdditionalPropertiesValue.FALSE)
  public record ContextRequest(
      @Schema(description = OWNER_KEY, requiredMode = RequiredMode.REQUIRED, example = "user:1")
          String ownerKey,
      @Schema(
              description = "The conversation the message belongs to (1-128 characters).",
              example = "c1")
          String conversationId,
      @Schema(
              description =
                  "The text to recall for, usually the user's message; may be empty; at most"
                      + " 32,768 characters.",
              requiredMode = RequiredMode.REQUIRED,
              example = "what tea do I like?")
          String query,
      @Schema(
              description =
                  "Most recall items, 1-200; absent or 0 means"
                      + " `memstack.stack.context.default-limit` (10).",
              minimum = "0",
              maximum = "200",
              example = "10")
          Integer limit,
      @Schema(
              description = "`true` keeps each item's ranking signals in its `metadata`.",
              example = "false")
          Boolean explain,
      @Schema(
              description =
                  "Recall only from these provider instances (ids, e.g. `[\"vector\"]`); absent"
                      + " means every enabled one. The others are reported `skipped`; the"
                      + " system and owner prompts come from every provider either way.",
              example = "[\"vector\"]")
          java.util.List<String> providers,
      @Schema(
              description =
                  "`true` adds `window`: the conversation window to send next (system prompt,"
                      + " summary of older turns, recent turns, this message with its context),"
                      + " counted per part; needs `ownerKey` and `conversationId`.",
              example = "false")
          Boolean window,
      @Schema(
              description =
                  "`true` adds `morningCard` to the owner's first context call of the day that"
                      + " asks for it (in `memstack.lifecycle.zone`, once per owner across hosts):"
                      + " what dreaming concluded yesterday, item by item; needs `ownerKey`.",
              example = "false")
          Boolean morningCard) {}

  /** {@code POST /api/v1/agents/{agentId}/memory/turns}. */
  @Schema(
      name = "TurnRequest",
      description = "A finished turn: what the user said and what the assistant answered.",
      additionalProperties = AdditionalPropertiesValue.FALSE)
  public record TurnRequest(
      @Schema(description = OWNER_KEY, requiredMode = RequiredMode.REQUIRED, example = "user:1")
          String ownerKey,
      @Schema(
              description = "The conversation (1-128 characters, no `/` or `\\`).",
              requiredMode = RequiredMode.REQUIRED,
              example = "c1")
          String conversationId,
      @Schema(
              description =
                  "The idempotency key (1-128 characters): the same turn id handed in twice is"
                      + " stored once. Generated (UUID) when absent.",
              example = "t-0001")
          String turnId,
      @Schema(
              description =
                  "What the user said, at most 200,000 characters; a `<memory-context>` block in"
                      + " it is removed before any provider sees it.",
              requiredMode = RequiredMode.REQUIRED,
              example = "I like green tea")
          String userMessage,
      @Schema(
              description =
                  "The assistant's reply, at most 200,000 characters (not both messages empty).",
              requiredMode = RequiredMode.REQUIRED,
              example = "Noted.")
          String assistantReply,
      @Schema(
              description = "Where the turn came from.",
              requiredMode = RequiredMode.REQUIRED,
              allowableValues = {"web", "channel", "api", "cron"},
              example = "web")
          String triggerSource,
      @Schema(
              description =
                  "When the turn happened (ISO-8601 instant), between 1970-01-01T00:00:00Z and a"
                      + " day from now; default now.",
              example = "2026-03-02T10:15:30Z")
          Instant time) {}

  /** {@code POST /api/v1/agents/{agentId}/memory/feedback}. */
  @Schema(
      name = "FeedbackRequest",
      description =
          "The recalled items the model used in its answer (`used`), the items the owner marked"
              + " wrong (`wrong`), or both; at least one of the two.",
      additionalProperties = AdditionalPropertiesValue.FALSE)
  public record FeedbackRequest(
      @Schema(description = OWNER_KEY, requiredMode = RequiredMode.REQUIRED, example = "user:1")
          String ownerKey,
      @ArraySchema(
              minItems = 1,
              maxItems = 200,
              arraySchema =
                  @Schema(
                      description =
                          "The items used, at most 200: the owner's trust in them goes up."))
          List<UsedItem> used,
      @ArraySchema(
              minItems = 1,
              maxItems = 200,
              arraySchema =
                  @Schema(
                      description =
                          "The items the owner marked wrong (a thumbs-down), at most 200: the"
                              + " owner's trust in them goes down, and a provider suppresses for"
                              + " this owner an item marked wrong often enough (never deleting"
                              + " it). Only providers with the TRUST capability take it."))
          List<UsedItem> wrong) {}

  /** One item of a {@link FeedbackRequest}'s {@code used} or {@code wrong}. */
  @Schema(name = "UsedItem", additionalProperties = AdditionalPropertiesValue.FALSE)
  public record UsedItem(
      @Schema(
              description = "The provider of the item, as in the context answer.",
              requiredMode = RequiredMode.REQUIRED,
              example = "vector")
          String provider,
      @Schema(
              description = "The item's `metadata.id` from the context answer (1-512 characters).",
              requiredMode = RequiredMode.REQUIRED,
              example = "t-0001#u0")
          String id) {}

  private static final String SCOPE =
      "`personal`, `team` or `global`; a token bound to owners may give `personal` only.";

  /** {@code PUT /api/v1/agents/{agentId}/workspace/files/{path}}. */
  @Schema(
      name = "WorkspaceFileWrite",
      description = "The new content of a workspace file.",
      additionalProperties = AdditionalPropertiesValue.FALSE)
  public record WorkspaceFileWrite(
      @Schema(
              description = "The file's Markdown.",
              requiredMode = RequiredMode.REQUIRED,
              example = "# MEMORY\n\n- likes green tea\n")
          String content,
      @Schema(description = OWNER_KEY, example = "user:1") String ownerKey,
      @Schema(description = SCOPE, example = "personal") String scope) {}

  /** {@code PATCH /api/v1/agents/{agentId}/workspace/files/{path}}. */
  @Schema(
      name = "WorkspaceFileMeta",
      description = "Turns a file on or off, or moves it: at least one of the two.",
      additionalProperties = AdditionalPropertiesValue.FALSE)
  public record WorkspaceFileMeta(
      @Schema(description = "Whether the file is injected into prompts.", example = "true")
          Boolean enabled,
      @Schema(description = "The file's position, lower first.", example = "3") Integer sortOrder,
      @Schema(description = OWNER_KEY, example = "user:1") String ownerKey,
      @Schema(description = SCOPE, example = "personal") String scope) {}

  /** {@code POST /api/v1/agents/{agentId}/workspace/search}. */
  @Schema(
      name = "WorkspaceSearch",
      description = "A keyword search over the workspace files the owner may see.",
      additionalProperties = AdditionalPropertiesValue.FALSE)
  public record WorkspaceSearch(
      @Schema(
              description = "The words to find.",
              requiredMode = RequiredMode.REQUIRED,
              example = "tea")
          String query,
      @Schema(description = OWNER_KEY, example = "user:1") String ownerKey,
      @Schema(description = SCOPE, example = "personal") String scope,
      @Schema(description = "Most hits.", example = "10") Integer limit) {}

  /**
   * The optional body of the memory-job routes ({@code .../summarize/{conversationId}}, {@code
   * .../emergence}): only {@code ownerKey} is read, other fields are ignored.
   */
  @Schema(
      name = "MemoryJobRequest",
      description =
          "Optional: the owner the job runs for (or `?ownerKey=`; given twice, the two must agree).")
  public record MemoryJobRequest(
      @Schema(description = OWNER_KEY, example = "user:1") String ownerKey) {}

  /** The body of {@code POST .../memory/dream/reports/{reportId}/items/{index}}. */
  @Schema(
      name = "CardItemRequest",
      description = "The owner's answer to one item of a dreaming report (an item of the card).")
  public record CardItemRequest(
      @Schema(
              description = "confirm, edit (with text) or forget",
              example = "edit",
              requiredMode = Schema.RequiredMode.REQUIRED)
          String action,
      @Schema(description = "the corrected line, for edit", example = "Carol leads billing")
          String text,
      @Schema(description = OWNER_KEY, example = "user:1") String ownerKey) {}

  /** The body of {@code POST .../memory/dream/focused}. */
  @Schema(name = "FocusedDreamRequest", description = "A dream on one topic only.")
  public record FocusedDreamRequest(
      @Schema(
              description = "what the dream looks at",
              example = "billing",
              requiredMode = Schema.RequiredMode.REQUIRED)
          String topic,
      @Schema(description = OWNER_KEY, example = "user:1") String ownerKey) {}

  /**
   * The body of {@code POST /api/v1/agents/{agentId}/tools/{providerId}/{tool}}: the tool's
   * arguments as its {@code inputSchema} describes them, plus an optional {@code ownerKey} that the
   * host takes out before the provider sees the arguments.
   */
  @Schema(
      name = "ToolArguments",
      description =
          "The tool's arguments (see its `inputSchema` in `GET .../tools`); an empty body means"
              + " `{}`. `ownerKey` (or `?ownerKey=`; given twice, the two must agree) is the owner"
              + " the call acts for and is not passed on to the tool.",
      additionalProperties = AdditionalPropertiesValue.TRUE)
  public record ToolArguments(
      @Schema(description = OWNER_KEY, example = "user:1") String ownerKey) {}

  /** The body of {@code POST /api/v1/agents/{agentId}/chat} and {@code /chat/stream}. */
  @Schema(
      name = "ChatRequest",
      description =
          "A chat message, answered with the whole stack's memory by the configured chat model."
              + " Exactly one of ownerKey and endUserId.",
      additionalProperties = AdditionalPropertiesValue.FALSE)
  public record ChatRequest(
      @Schema(description = OWNER_KEY + " Give this or endUserId.", example = "user:1")
          String ownerKey,
      @Schema(
              description =
                  "The end user's id in your system (a string; a JSON integer is taken digit for"
                      + " digit): owner `api:<endUserId>`. Give this or ownerKey.",
              example = "90071992547409931")
          String endUserId,
      @Schema(
              description = "The conversation (1-128 characters, no `/` or `\\`).",
              requiredMode = RequiredMode.REQUIRED,
              example = "c1")
          String conversationId,
      @Schema(
              description =
                  "What the user says, at most 200,000 characters; a `<memory-context>` block in"
                      + " it is removed.",
              requiredMode = RequiredMode.REQUIRED,
              example = "What tea do I like?")
          String message,
      @Schema(
              description = "Where the message came from: web (the default), channel, api, cron.",
              allowableValues = {"web", "channel", "api", "cron"})
          String triggerSource) {}

  /** The body of {@code POST /api/v1/tokens}. */
  @Schema(
      name = "TokenRequest",
      description = "A managed API token to make: its name, role and optional owner binding.",
      additionalProperties = AdditionalPropertiesValue.FALSE)
  public record TokenRequest(
      @Schema(
              description =
                  "What to call the token, 1-100 characters without control characters (shown in"
                      + " the list and in histories beside its id).",
              requiredMode = RequiredMode.REQUIRED,
              example = "support dashboard")
          String name,
      @Schema(
              description = "What the token may do (any case).",
              requiredMode = RequiredMode.REQUIRED,
              allowableValues = {"VIEWER", "MEMBER", "ADMIN"},
              example = "VIEWER")
          String role,
      @Schema(
              description =
                  "The owner binding: one owner key (`api:42`) or a prefix (`api:*`); absent for"
                      + " a token that may act for any owner.",
              example = "api:42")
          String owner) {}
}
