package dev.memstack.mem0;

import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ToolArguments;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The agent-callable tools {@code mem0_search} (a read) and {@code mem0_add} (a write). Both act
 * for the call's owner and agent only (the host has checked the caller may act for that owner); a
 * call without an owner is refused, because Mem0 memory is personal here, and {@code mem0_add}
 * needs the caller's right to change that owner's personal memory ({@link
 * ToolCall#requireWritable}). There are no tools that change or delete a stored memory by id.
 * Arguments are read by {@link ToolArguments}, whose errors name the argument. Server failures
 * become {@link ToolException}s ({@code UNAVAILABLE}, or {@code INVALID_ARGUMENT} when the server
 * refuses the content).
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

  private final Mem0Client client;
  private final JsonMapper json;

  /** The tools of the provider instance that {@code client} serves, with its settings. */
  Mem0Tools(Mem0Client client) {
    this.client = client;
    this.json = client.json();
  }

  List<ToolSpec> specs() {
    return List.of(
        new ToolSpec(
            SEARCH,
            "Search the user's long-term memory kept in Mem0. Returns the memories that best"
                + " match the query, most relevant first.",
            SEARCH_SCHEMA,
            ToolSpec.Effect.READ),
        new ToolSpec(
            ADD,
            "Store a fact about the user in their long-term memory kept in Mem0, so that later"
                + " conversations can recall it.",
            ADD_SCHEMA,
            ToolSpec.Effect.WRITE));
  }

  String call(ToolCall call) {
    if (!call.name().equals(SEARCH) && !call.name().equals(ADD)) {
      throw new ToolException(
          ToolException.Kind.NOT_FOUND,
          "provider " + client.instanceId() + " has no tool " + call.name());
    }
    OwnerKey owner = call.owner();
    if (owner == null) {
      throw new ToolException(
          ToolException.Kind.INVALID_ARGUMENT,
          call.name() + " needs an owner: Mem0 memory is kept per user");
    }
    ToolArguments arguments = ToolArguments.parse(call);
    if (call.name().equals(ADD)) {
      call.requireWritable(Scope.PERSONAL);
    }
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

  private String search(ToolCall call, OwnerKey owner, ToolArguments arguments) {
    arguments.requireOnly("query", "limit");
    String query = arguments.requiredText("query", MAX_TEXT);
    int limit = arguments.optionalInt("limit", 1, MAX_LIMIT, client.settings().maxResults());
    List<Mem0Memory> hits =
        client.search(
            owner.value(), call.agent().value(), query, limit, client.settings().timeout());
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

  private String add(ToolCall call, OwnerKey owner, ToolArguments arguments) {
    arguments.requireOnly("text", "infer");
    String text = arguments.requiredText("text", MAX_TEXT);
    boolean infer = arguments.optionalBoolean("infer", client.settings().infer());
    Mem0AddResult result =
        client.add(
            owner.value(),
            call.agent().value(),
            List.of(new Mem0Client.Message("user", text)),
            Map.of("source", "memstack-tool", Mem0MemoryProvider.META_AGENT, call.agent().value()),
            infer,
            client.settings().syncTimeout());
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

  private static void putIfPresent(ObjectNode node, String field, String value) {
    if (value != null) {
      node.put(field, value);
    }
  }
}
