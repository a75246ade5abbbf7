package dev.memstack.host.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.conversation.LoggedTurn;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.host.stack.ContextAnswer;
import dev.memstack.host.stack.ContextQuery;
import dev.memstack.host.stack.MemoryContextFence;
import dev.memstack.host.stack.MemoryStack;
import dev.memstack.host.stack.ProviderReport;
import dev.memstack.host.stack.TurnSubmission;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/**
 * The two calls an agent platform makes per turn: {@code POST .../memory/context} before the model
 * runs (system prompt, recall and the fenced context block) and {@code POST .../memory/turns} after
 * it answered (202; delivery to the providers happens in the background). Every field is checked by
 * the SPI records before anything reaches the stack, so a rejected request stores nothing. A
 * context call needs {@code viewer}, a turn {@code member}; both only for an owner the caller's
 * token covers.
 */
@RestController
@RequestMapping(
    path = "/api/v1/agents/{agentId}/memory",
    produces = MediaType.APPLICATION_JSON_VALUE)
public class MemoryController {

  /** The fields a context request may carry. */
  private static final Set<String> CONTEXT_FIELDS =
      ApiRequests.fields(ApiRequests.ContextRequest.class);

  /** The fields a turn may carry. */
  private static final Set<String> TURN_BODY_FIELDS =
      ApiRequests.fields(ApiRequests.TurnRequest.class);

  /** The fields a feedback request may carry. */
  private static final Set<String> FEEDBACK_FIELDS =
      ApiRequests.fields(ApiRequests.FeedbackRequest.class);

  /** Turn fields whose errors the {@link Turn} constructor reports by name. */
  private static final Set<String> TURN_FIELDS =
      Set.of("turnId", "conversationId", "userMessage", "assistantReply");

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(MemoryController.class);

  private final MemoryStack stack;
  private final AccessPolicy access;
  private final ConversationLog conversations;

  public MemoryController(MemoryStack stack, AccessPolicy access, ConversationLog conversations) {
    this.stack = stack;
    this.access = access;
    this.conversations = conversations;
  }

  /** The answer of a context call. */
  public record ContextResponse(
      String systemPrompt,
      String ownerPrompt,
      List<RecallView> recall,
      String context,
      List<ReportView> providers) {}

  /** The answer of a feedback call: per provider, how many ids it applied (-1: takes none). */
  public record FeedbackResponse(Map<String, Integer> applied) {}

  /** Most items one feedback call may name. */
  static final int MAX_FEEDBACK_ITEMS = 200;

  /** One recalled memory. */
  public record RecallView(
      String provider,
      String text,
      double score,
      String scope,
      Instant createdAt,
      Map<String, String> metadata) {

    static RecallView of(RecallItem item) {
      return new RecallView(
          item.source(),
          item.text(),
          item.score(),
          item.scope().name().toLowerCase(Locale.ROOT),
          item.createdAt(),
          item.metadata());
    }
  }

  /** How one provider did. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ReportView(String id, String status, long tookMs, String detail) {

    static ReportView of(ProviderReport report) {
      return new ReportView(report.id(), report.status(), report.tookMs(), report.detail());
    }
  }

  /** The answer of a turn submission. */
  public record TurnAccepted(String turnId) {}

  @Operation(
      summary =
          "Context before the model runs: system prompt, owner prompt, recall and the fenced context block")
  @io.swagger.v3.oas.annotations.parameters.RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = ApiRequests.ContextRequest.class)))
  @RequiresRole(Role.VIEWER)
  @PostMapping(path = "/context", consumes = MediaType.APPLICATION_JSON_VALUE)
  public ContextResponse context(
      @PathVariable("agentId") String agentId, @RequestBody(required = false) JsonNode body) {
    AgentId agent = agent(agentId);
    JsonBody json = JsonBody.of(body).onlyFields(CONTEXT_FIELDS);
    OwnerKey owner = coveredOwner(json);
    String conversationId = json.optionalString("conversationId");
    String query = json.requiredString("query");
    int limit = json.optionalInt("limit", 0);
    boolean explain = json.optionalBoolean("explain", false);
    Set<String> providers = providers(json.node().get("providers"));
    if (providers != null) {
      JsonBody.parse(
          "providers",
          () -> {
            stack.checkProviders(providers);
            return providers;
          });
    }
    if (limit != 0) {
      JsonBody.parse("limit", () -> RecallRequest.of(agent, owner, "").withLimit(limit));
    }
    // RecallRequest checks the conversation id and the query as the providers will see them.
    JsonBody.parse(
        "conversationId",
        () -> conversationId == null ? null : recallRequest(agent, owner, conversationId, ""));
    JsonBody.parse("query", () -> recallRequest(agent, owner, null, query));
    ContextQuery contextQuery =
        JsonBody.parse(
            "body",
            () -> new ContextQuery(agent, owner, conversationId, query, limit, explain, providers));
    ContextAnswer answer = stack.context(contextQuery);
    return new ContextResponse(
        answer.systemPrompt(),
        answer.ownerPrompt(),
        answer.recall().stream().map(RecallView::of).toList(),
        answer.context(),
        answer.providers().stream().map(ReportView::of).toList());
  }

  /** Most provider ids one context call may name. */
  private static final int MAX_PROVIDERS = 64;

  /** A context call's {@code providers}: absent ({@code null}), or a non-empty array of ids. */
  private static Set<String> providers(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isArray() || node.isEmpty() || node.size() > MAX_PROVIDERS) {
      throw new BadRequestException(
          "providers",
          "providers must be a non-empty array of at most "
              + MAX_PROVIDERS
              + " provider instance ids");
    }
    Set<String> ids = new java.util.LinkedHashSet<>();
    for (int i = 0; i < node.size(); i++) {
      JsonNode id = node.get(i);
      if (!id.isTextual() || id.asText().isBlank()) {
        throw new BadRequestException(
            "providers", "providers[" + i + "] must be a provider instance id (a string)");
      }
      ids.add(id.asText());
    }
    return ids;
  }

  /**
   * The owner confirms that recalled items were used: {@code {"ownerKey", "used": [{"provider",
   * "id"}]}}, each {@code id} the {@code metadata.id} of a recall item as the context call returned
   * it. Only this signal changes ranking, and only for this owner.
   */
  @Operation(
      summary = "Confirm that recalled items were used (the only signal that changes ranking)")
  @io.swagger.v3.oas.annotations.parameters.RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = ApiRequests.FeedbackRequest.class)))
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = "/feedback", consumes = MediaType.APPLICATION_JSON_VALUE)
  public FeedbackResponse feedback(
      @PathVariable("agentId") String agentId, @RequestBody(required = false) JsonNode body) {
    AgentId agent = agent(agentId);
    JsonBody json = JsonBody.of(body).onlyFields(FEEDBACK_FIELDS);
    OwnerKey owner = coveredOwner(json);
    JsonNode used = json.node().get("used");
    if (used == null || !used.isArray() || used.isEmpty()) {
      throw new BadRequestException(
          "used", "used must be a non-empty array of {\"provider\", \"id\"} objects");
    }
    if (used.size() > MAX_FEEDBACK_ITEMS) {
      throw new BadRequestException(
          "used", "used names " + used.size() + " items; at most " + MAX_FEEDBACK_ITEMS);
    }
    Map<String, List<String>> byProvider = new java.util.LinkedHashMap<>();
    for (int i = 0; i < used.size(); i++) {
      JsonNode entry = used.get(i);
      String field = "used[" + i + "]";
      if (entry == null || !entry.isObject()) {
        throw new BadRequestException(field, field + " must be an object {\"provider\", \"id\"}");
      }
      JsonBody item = JsonBody.of(entry);
      String provider = requiredText(item, field, "provider");
      String id = requiredText(item, field, "id");
      byProvider.computeIfAbsent(provider, p -> new java.util.ArrayList<>()).add(id);
    }
    try {
      return new FeedbackResponse(stack.feedback(agent, owner, byProvider));
    } catch (IllegalArgumentException e) {
      throw new BadRequestException("used", e.getMessage());
    }
  }

  private static String requiredText(JsonBody item, String prefix, String name) {
    String value;
    try {
      value = item.optionalString(name);
    } catch (BadRequestException e) {
      throw new BadRequestException(prefix + "." + name, prefix + "." + name + " must be a string");
    }
    if (value == null || value.isBlank() || value.length() > 512) {
      throw new BadRequestException(
          prefix + "." + name, prefix + "." + name + " is required (1-512 characters)");
    }
    return value;
  }

  @Operation(summary = "Hand in a finished turn; the providers learn from it in the background")
  @io.swagger.v3.oas.annotations.parameters.RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = ApiRequests.TurnRequest.class)))
  @ApiResponse(responseCode = "202", description = "accepted; delivery follows in the background")
  @RequiresRole(Role.MEMBER)
  @PostMapping(path = "/turns", consumes = MediaType.APPLICATION_JSON_VALUE)
  public ResponseEntity<TurnAccepted> turns(
      @PathVariable("agentId") String agentId, @RequestBody(required = false) JsonNode body) {
    AgentId agent = agent(agentId);
    JsonBody json = JsonBody.of(body).onlyFields(TURN_BODY_FIELDS);
    OwnerKey owner = coveredOwner(json);
    String conversationId = json.requiredString("conversationId");
    String userMessage = json.requiredString("userMessage");
    String assistantReply = json.requiredString("assistantReply");
    String triggerSourceText = json.requiredString("triggerSource");
    TriggerSource triggerSource =
        JsonBody.parse("triggerSource", () -> TriggerSource.parse(triggerSourceText));
    String turnId = json.optionalString("turnId");
    String timeText = json.optionalString("time");
    Instant time = timeText == null ? null : time(timeText);
    // The Turn constructor is the validation the providers rely on; run it before accepting.
    turn(
        () ->
            new Turn(
                turnId == null ? "validation" : turnId,
                agent,
                owner,
                conversationId,
                userMessage,
                assistantReply,
                triggerSource,
                time == null ? Instant.EPOCH : time));
    String accepted =
        turn(
            () ->
                stack.submit(
                    new TurnSubmission(
                        agent,
                        owner,
                        conversationId,
                        turnId,
                        userMessage,
                        assistantReply,
                        triggerSource,
                        time)));
    try {
      conversations.append(
          new LoggedTurn(
              accepted,
              agent,
              owner,
              conversationId,
              MemoryContextFence.stripBlocks(userMessage),
              assistantReply,
              triggerSource.wireName(),
              time == null ? Instant.now() : time));
    } catch (RuntimeException e) {
      // the turn is accepted and on its way to the providers; the log is a convenience view
      log.warn("Conversation log could not record turn {}: {}", accepted, e.toString());
    }
    return ResponseEntity.status(HttpStatus.ACCEPTED).body(new TurnAccepted(accepted));
  }

  /** The body's {@code ownerKey}, checked, and covered by the caller's token. */
  private OwnerKey coveredOwner(JsonBody json) {
    String ownerKey = json.requiredString("ownerKey");
    OwnerKey owner = JsonBody.parse("ownerKey", () -> OwnerKey.of(ownerKey));
    access.requireOwner(owner);
    return owner;
  }

  /** The agent id of a path, checked; a bad one answers 400 naming {@code agentId}. */
  public static AgentId agent(String agentId) {
    return JsonBody.parse("agentId", () -> AgentId.of(agentId));
  }

  private static RecallRequest recallRequest(
      AgentId agent, OwnerKey owner, String conversationId, String query) {
    return new RecallRequest(agent, owner, conversationId, query, 1, Instant.EPOCH);
  }

  private static Instant time(String text) {
    Instant time;
    try {
      time = Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new BadRequestException(
          "time", "time must be an ISO-8601 instant such as 2026-03-02T10:15:30Z, got: " + text);
    }
    Instant latest = Instant.now().plus(java.time.Duration.ofDays(1));
    if (time.isBefore(Instant.EPOCH) || time.isAfter(latest)) {
      throw new BadRequestException(
          "time", "time must lie between 1970-01-01T00:00:00Z and a day from now, got: " + text);
    }
    return time;
  }

  /** Runs a turn check; an error names the field its message starts with. */
  private static <T> T turn(java.util.function.Supplier<T> body) {
    try {
      return body.get();
    } catch (IllegalArgumentException | NullPointerException e) {
      String message = e.getMessage() == null ? "invalid turn" : e.getMessage();
      String first = message.split("[ :]", 2)[0];
      throw new BadRequestException(TURN_FIELDS.contains(first) ? first : "body", message);
    }
  }
}
