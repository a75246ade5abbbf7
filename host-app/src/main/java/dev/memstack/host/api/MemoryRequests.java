package dev.memstack.host.api;

import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.stack.ChatRequest;
import dev.memstack.host.stack.ContextQuery;
import dev.memstack.host.stack.RequestChecks;
import dev.memstack.host.stack.TurnRequest;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;

/**
 * Reads the JSON of the memory calls (a REST body of {@link MemoryController}, the arguments of the
 * MCP tool {@code memory_context}) into the stack's request records: unknown fields and JSON types
 * are refused here, naming the field; the content of every field is checked once, by the record's
 * compact constructor. The {@code ownerKey} is read first and must be covered by the caller's token
 * ({@link AccessPolicy#requireOwner}), so a caller learns nothing about a body for an owner it may
 * not act for.
 */
public final class MemoryRequests {

  /** The fields a context request may carry. */
  static final Set<String> CONTEXT_FIELDS = ApiRequests.fields(ApiRequests.ContextRequest.class);

  /** The fields a turn may carry. */
  static final Set<String> TURN_FIELDS = ApiRequests.fields(ApiRequests.TurnRequest.class);

  /** The fields a feedback request may carry. */
  static final Set<String> FEEDBACK_FIELDS = ApiRequests.fields(ApiRequests.FeedbackRequest.class);

  /** The fields an item of a feedback call's {@code used} or {@code wrong} may carry. */
  static final Set<String> USED_FIELDS = ApiRequests.fields(ApiRequests.UsedItem.class);

  /** Most items one feedback call may name. */
  static final int MAX_FEEDBACK_ITEMS = 200;

  /** Longest item or provider id a feedback call may name. */
  private static final int MAX_FEEDBACK_ID = 512;

  private MemoryRequests() {}

  /** A context call ({@link ApiRequests.ContextRequest}) for {@code agent}. */
  public static ContextQuery context(AgentId agent, JsonNode body, AccessPolicy access) {
    JsonBody json = JsonBody.of(body).onlyFields(CONTEXT_FIELDS);
    OwnerKey owner = coveredOwner(json, access);
    return new ContextQuery(
        agent,
        owner,
        json.optionalString("conversationId"),
        json.requiredString("query"),
        json.optionalInt("limit", 0),
        json.optionalBoolean("explain", false),
        providers(json.node().get("providers")),
        json.optionalBoolean("window", false),
        json.optionalBoolean("morningCard", false));
  }

  /** A finished turn ({@link ApiRequests.TurnRequest}) for {@code agent}. */
  public static TurnRequest turn(AgentId agent, JsonNode body, AccessPolicy access) {
    JsonBody json = JsonBody.of(body).onlyFields(TURN_FIELDS);
    OwnerKey owner = coveredOwner(json, access);
    String conversationId = json.requiredString("conversationId");
    String userMessage = json.requiredString("userMessage");
    String assistantReply = json.requiredString("assistantReply");
    String source = json.requiredString("triggerSource");
    TriggerSource triggerSource =
        JsonBody.parse("triggerSource", () -> TriggerSource.parse(source));
    String turnId = json.optionalString("turnId");
    String time = json.optionalString("time");
    return new TurnRequest(
        agent,
        owner,
        conversationId,
        turnId,
        userMessage,
        assistantReply,
        triggerSource,
        time == null ? null : time(time));
  }

  /** The fields a chat request may carry. */
  static final Set<String> CHAT_FIELDS = ApiRequests.fields(ApiRequests.ChatRequest.class);

  /**
   * A chat message: exactly one of {@code ownerKey} and {@code endUserId} (owner {@code
   * api:<endUserId>}, a JSON integer taken digit for digit), covered by the caller's token.
   */
  public static ChatRequest chat(AgentId agent, JsonNode body, AccessPolicy access) {
    JsonBody json = JsonBody.of(body).onlyFields(CHAT_FIELDS);
    JsonNode ownerNode = json.node().get("ownerKey");
    JsonNode endUserNode = json.node().get("endUserId");
    boolean hasOwner = ownerNode != null && !ownerNode.isNull();
    boolean hasEndUser = endUserNode != null && !endUserNode.isNull();
    if (hasOwner == hasEndUser) {
      throw new BadRequestException(
          hasOwner ? "endUserId" : "ownerKey",
          "give exactly one of ownerKey and endUserId"
              + (hasOwner ? ", not both" : " (neither was given)"));
    }
    OwnerKey owner;
    if (hasOwner) {
      owner = JsonBody.ownerKey(json.requiredString("ownerKey"));
    } else if (endUserNode.isString()) {
      owner = ChatRequest.endUser(endUserNode.stringValue());
    } else if (endUserNode.isIntegralNumber()) {
      owner = ChatRequest.endUser(endUserNode.bigIntegerValue().toString());
    } else {
      throw new BadRequestException("endUserId", "endUserId must be a string or an integer");
    }
    access.requireOwner(owner);
    String source = json.optionalString("triggerSource");
    TriggerSource triggerSource =
        source == null ? null : JsonBody.parse("triggerSource", () -> TriggerSource.parse(source));
    return new ChatRequest(
        agent,
        owner,
        json.requiredString("conversationId"),
        json.requiredString("message"),
        triggerSource);
  }

  /** A feedback call's owner, checked and covered by the caller's token. */
  public static OwnerKey feedbackOwner(JsonBody json, AccessPolicy access) {
    return coveredOwner(json.onlyFields(FEEDBACK_FIELDS), access);
  }

  /**
   * A feedback call's {@code used}: per provider id, the item ids, in the order given; empty when
   * the call gives only {@code wrong}.
   *
   * @throws BadRequestException naming {@code used} or the item ({@code used[3].id}) at fault, or
   *     {@code used} when the call gives neither {@code used} nor {@code wrong}
   */
  public static Map<String, List<String>> used(JsonBody json) {
    return feedbackItems(json, "used");
  }

  /**
   * A feedback call's {@code wrong}: per provider id, the item ids, in the order given; empty when
   * the call gives only {@code used}. Checked as {@link #used} is.
   */
  public static Map<String, List<String>> wrong(JsonBody json) {
    return feedbackItems(json, "wrong");
  }

  private static Map<String, List<String>> feedbackItems(JsonBody json, String name) {
    JsonNode items = json.node().get(name);
    if (items == null || items.isNull()) {
      JsonNode used = json.node().get("used");
      JsonNode wrong = json.node().get("wrong");
      if ((used == null || used.isNull()) && (wrong == null || wrong.isNull())) {
        throw new BadRequestException(
            "used",
            "used or wrong is required: a non-empty array of {\"provider\", \"id\"} objects");
      }
      return Map.of();
    }
    if (!items.isArray() || items.isEmpty()) {
      throw new BadRequestException(
          name, name + " must be a non-empty array of {\"provider\", \"id\"} objects");
    }
    if (items.size() > MAX_FEEDBACK_ITEMS) {
      throw new BadRequestException(
          name, name + " names " + items.size() + " items; at most " + MAX_FEEDBACK_ITEMS);
    }
    Map<String, List<String>> byProvider = new LinkedHashMap<>();
    for (int i = 0; i < items.size(); i++) {
      JsonNode entry = items.get(i);
      String field = name + "[" + i + "]";
      if (entry == null || !entry.isObject()) {
        throw new BadRequestException(field, field + " must be an object {\"provider\", \"id\"}");
      }
      for (String property : entry.propertyNames()) {
        if (!USED_FIELDS.contains(property)) {
          throw new BadRequestException(
              field + "." + property,
              "unknown field "
                  + field
                  + "."
                  + property
                  + "; an item of "
                  + name
                  + " takes "
                  + new TreeSet<>(USED_FIELDS));
        }
      }
      JsonBody item = JsonBody.of(entry);
      String provider = usedText(item, field + ".provider", "provider");
      byProvider
          .computeIfAbsent(provider, p -> new ArrayList<>())
          .add(usedText(item, field + ".id", "id"));
    }
    return byProvider;
  }

  private static String usedText(JsonBody item, String field, String name) {
    JsonNode node = item.node().get(name);
    if (node != null && !node.isNull() && !node.isString()) {
      throw new BadRequestException(field, field + " must be a string");
    }
    String value;
    try {
      value = item.optionalString(name);
    } catch (BadRequestException e) {
      // the string is there but not valid Unicode: say so, on the item's field
      throw new BadRequestException(field, field + e.getMessage().substring(name.length()));
    }
    if (value == null || value.isBlank() || value.length() > MAX_FEEDBACK_ID) {
      throw new BadRequestException(
          field, field + " is required (1-" + MAX_FEEDBACK_ID + " characters)");
    }
    return RequestChecks.storedText(field, value);
  }

  /** The body's {@code ownerKey}, checked, and covered by the caller's token. */
  private static OwnerKey coveredOwner(JsonBody json, AccessPolicy access) {
    String ownerKey = json.requiredString("ownerKey");
    OwnerKey owner = JsonBody.ownerKey(ownerKey);
    access.requireOwner(owner);
    return owner;
  }

  /** A context call's {@code providers}: absent ({@code null}), or an array of ids (strings). */
  private static Set<String> providers(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isArray()) {
      throw new BadRequestException(
          "providers", "providers must be an array of provider instance ids");
    }
    Set<String> ids = new LinkedHashSet<>();
    for (int i = 0; i < node.size(); i++) {
      JsonNode id = node.get(i);
      if (!id.isString()) {
        throw new BadRequestException(
            "providers", "providers[" + i + "] must be a provider instance id (a string)");
      }
      ids.add(id.stringValue());
    }
    return ids;
  }

  private static Instant time(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new BadRequestException(
          "time", "time must be an ISO-8601 instant such as 2026-03-02T10:15:30Z, got: " + text);
    }
  }
}
