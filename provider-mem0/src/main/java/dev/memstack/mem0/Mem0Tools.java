package dev.memstack.mem0;

import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The agent-callable tools {@code mem0_search} and {@code mem0_add}. Both act for the call's owner
 * and agent only (the host has checked the caller may act for that owner); a call without an owner
 * is refused, because Mem0 memory is personal here. Server failures become {@link ToolException}s
 * ({@code UNAVAILABLE}, or {@code INVALID_ARGUMENT} when the server refuses the content).
 */
final class Mem0Tools {

  static final String SEARCH = "mem0_search";
  static final String ADD = "mem0_add";
  static final int MAX_TEXT = 10_000;
  static final int MAX_LIMIT = 100;

  private static final String SEARCH_SCHEMA =
      """
      {"type":"object",\
      "properties":{\
      "query":{"type":"string","minLength":1,"maxLength":%d,\
      "description":"What to look for in the user's long-term memory"},\
      "limit":{"type":"integer","minimum":1,"maximum":%d,\
      "description":"How many memories to return at most"}},\
      "required":["query"],"additionalProperties":false}"""
          .formatted(MAX_TEXT, MAX_LIMIT);

  private static final String ADD_SCHEMA =
      """
      {"type":"object",\
      "properties":{\
      "text":{"type":"string","minLength":1,"maxLength":%d,\
      "description":"A fact about the user to remember, in plain words"},\
      "infer":{"type":"boolean",\
      "description":"Let Mem0 extract facts from the text (true) or store it as it is (false)"}},\
      "required":["text"],"additionalProperties":false}"""
          .formatted(MAX_TEXT);

  private final String providerId;
  private final Mem0Settings settings;
  private final Mem0Client client;
  private final JsonMapper json;

  Mem0Tools(String providerId, Mem0Settings settings, Mem0Client client) {
    this.providerId = providerId;
    this.settings = settings;
    this.client = client;
    this.json = client.json();
  }

  List<ToolSpec> specs() {
    return List.of(
        new ToolSpec(
            SEARCH,
            "Search the user's long-term memory kept in Mem0. Returns the memories that best"
                + " match the query, most relevant first.",
            SEARCH_SCHEMA),
        new ToolSpec(
            ADD,
            "Store a fact about the user in their long-term memory kept in Mem0, so that later"
                + " conversations can recall it.",
            ADD_SCHEMA));
  }

  String call(ToolCall call) {
    if (!call.name().equals(SEARCH) && !call.name().equals(ADD)) {
      throw new ToolException(
          ToolException.Kind.NOT_FOUND, "provider " + providerId + " has no tool " + call.name());
    }
    OwnerKey owner = call.owner();
    if (owner == null) {
      throw new ToolException(
          ToolException.Kind.INVALID_ARGUMENT,
          call.name() + " needs an owner: Mem0 memory is kept per user");
    }
    JsonNode arguments = arguments(call);
    try {
      return call.name().equals(SEARCH)
          ? search(call, owner, arguments)
          : add(call, owner, arguments);
    } catch (Mem0Exception e) {
      throw new ToolException(
          e.kind() == Mem0Exception.Kind.REJECTED
              ? ToolException.Kind.INVALID_ARGUMENT
              : ToolException.Kind.UNAVAILABLE,
          e.getMessage(),
          e);
    } catch (ProviderUnavailableException e) {
      throw new ToolException(ToolException.Kind.UNAVAILABLE, e.getMessage(), e);
    }
  }

  private String search(ToolCall call, OwnerKey owner, JsonNode arguments) {
    allowOnly(call, arguments, Set.of("query", "limit"));
    String query = requiredText(call, arguments, "query");
    int limit = settings.maxResults();
    JsonNode limitNode = arguments.get("limit");
    if (limitNode != null && !limitNode.isNull()) {
      if (!limitNode.canConvertToInt()
          || !limitNode.isIntegralNumber()
          || limitNode.asInt() < 1
          || limitNode.asInt() > MAX_LIMIT) {
        throw invalid(call, "limit must be an integer from 1 to " + MAX_LIMIT);
      }
      limit = limitNode.asInt();
    }
    List<Mem0Memory> hits =
        client.search(owner.value(), call.agent().value(), query, limit, settings.timeout());
    ObjectNode answer = json.createObjectNode();
    ArrayNode results = answer.putArray("results");
    for (Mem0Memory hit : hits) {
      ObjectNode item = results.addObject();
      item.put("id", hit.id());
      item.put("memory", hit.text());
      if (hit.score() != null) {
        item.put("score", hit.score());
      }
      if (hit.createdAt() != null) {
        item.put("created_at", hit.createdAt().toString());
      }
    }
    return answer.toString();
  }

  private String add(ToolCall call, OwnerKey owner, JsonNode arguments) {
    allowOnly(call, arguments, Set.of("text", "infer"));
    String text = requiredText(call, arguments, "text");
    boolean infer = settings.infer();
    JsonNode inferNode = arguments.get("infer");
    if (inferNode != null && !inferNode.isNull()) {
      if (!inferNode.isBoolean()) {
        throw invalid(call, "infer must be true or false");
      }
      infer = inferNode.asBoolean();
    }
    Mem0AddResult result =
        client.add(
            owner.value(),
            call.agent().value(),
            List.of(new Mem0Client.Message("user", text)),
            Map.of("source", "memstack-tool", Mem0MemoryProvider.META_AGENT, call.agent().value()),
            infer,
            settings.syncTimeout());
    ObjectNode answer = json.createObjectNode();
    answer.put("accepted", true);
    ArrayNode events = answer.putArray("events");
    for (Mem0AddResult.Event event : result.events()) {
      ObjectNode item = events.addObject();
      putIfPresent(item, "id", event.id());
      putIfPresent(item, "event", event.event());
      putIfPresent(item, "memory", event.memory());
      putIfPresent(item, "status", event.status());
      putIfPresent(item, "event_id", event.eventId());
    }
    return answer.toString();
  }

  private JsonNode arguments(ToolCall call) {
    JsonNode arguments;
    try {
      arguments = json.readTree(call.arguments());
    } catch (JacksonException e) {
      throw invalid(call, "arguments are not valid JSON");
    }
    if (arguments == null || !arguments.isObject()) {
      throw invalid(call, "arguments must be a JSON object");
    }
    return arguments;
  }

  private static void allowOnly(ToolCall call, JsonNode arguments, Set<String> allowed) {
    arguments
        .propertyNames()
        .forEach(
            name -> {
              if (!allowed.contains(name)) {
                throw invalid(call, "unknown argument '" + Mem0Exchange.clip(name) + "'");
              }
            });
  }

  private static String requiredText(ToolCall call, JsonNode arguments, String name) {
    JsonNode value = arguments.get(name);
    if (value == null || !value.isString() || value.asString().isBlank()) {
      throw invalid(call, name + " is required and must be a non-empty string");
    }
    String text = value.asString().strip();
    if (text.length() > MAX_TEXT) {
      throw invalid(call, name + " is longer than " + MAX_TEXT + " characters");
    }
    return text;
  }

  private static void putIfPresent(ObjectNode node, String field, String value) {
    if (value != null) {
      node.put(field, value);
    }
  }

  private static ToolException invalid(ToolCall call, String problem) {
    return new ToolException(ToolException.Kind.INVALID_ARGUMENT, call.name() + ": " + problem);
  }
}
