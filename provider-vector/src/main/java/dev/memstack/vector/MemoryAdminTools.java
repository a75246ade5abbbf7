package dev.memstack.vector;

import dev.memstack.spi.Scope;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ToolArgumentErrors;
import dev.memstack.support.ToolArguments;
import dev.memstack.vector.store.HistoryEvent;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.ai.vectorstore.filter.Filter;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tools of {@link dev.memstack.spi.Capability#MEMORY_ADMIN} that {@link VectorMemoryTools} does
 * not already have: {@code count_memories}, {@code list_owners}, {@code get_memory}, {@code
 * edit_memory} and {@code memory_history}; and the history events of every change a tool makes
 * ({@link #record}).
 *
 * <p>A memory's history is its creation (read from the memory: {@code added}, with the text it was
 * created with) followed by the events of {@link MemoryVectorStore#history()}. An edit is checked
 * against the {@code updatedAt} the caller read (optimistic locking) under a lock per memory id in
 * this process; two hosts editing one memory of a shared database at the same millisecond are not
 * told apart (the later write wins, and both edits are in its history).
 */
final class MemoryAdminTools {

  static final String UPDATED_AT = MemoryRecord.UPDATED_AT;

  /** Most owners one {@code list_owners} page holds. */
  static final int MAX_OWNERS_PAGE = 1000;

  /** ... without their counts ({@code counts: false}). */
  static final int MAX_KEYS_PAGE = 10_000;

  static final List<ToolSpec> SPECS =
      List.of(
          new ToolSpec(
              StandardTools.COUNT_MEMORIES,
              "Count the memories the current owner may see: the total, by status and by type,"
                  + " with the filters of list_memories.",
              "{\"type\":\"object\",\"properties\":{"
                  + VectorMemoryTools.FILTER_PROPS
                  + ",\"text\":{\"type\":\"string\",\"description\":\"words the text holds\"}"
                  + ",\"allOwners\":{\"type\":\"boolean\",\"description\":\"count every"
                  + " owner's personal memories of the agent too (no owner in the call)\"}"
                  + "},\"additionalProperties\":false}",
              ToolSpec.Effect.READ),
          new ToolSpec(
              StandardTools.LIST_OWNERS,
              "The owners this agent holds personal memories of, by owner key, in pages, each with"
                  + " how many it has (every status); q keeps the keys that hold it (any case),"
                  + " prefix those that start with it. With an owner, that owner alone.",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"offset\":{\"type\":\"integer\",\"minimum\":0},"
                  + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":"
                  + MAX_KEYS_PAGE
                  + "},"
                  + "\"q\":{\"type\":\"string\",\"description\":\"a part of the owner key\"},"
                  + "\"prefix\":{\"type\":\"string\",\"description\":\"the start of the owner"
                  + " key\"},"
                  + "\"counts\":{\"type\":\"boolean\",\"description\":\"false: the keys alone"
                  + " (limit up to "
                  + MAX_KEYS_PAGE
                  + ")\"}},\"additionalProperties\":false}",
              ToolSpec.Effect.READ),
          new ToolSpec(
              StandardTools.GET_MEMORY,
              "Read one memory by id, with its status, dates, importance and weight.",
              "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},"
                  + "\"required\":[\"id\"],\"additionalProperties\":false}",
              ToolSpec.Effect.READ),
          new ToolSpec(
              StandardTools.EDIT_MEMORY,
              "Replace the text of one memory. updatedAt is the updatedAt you read: if the memory"
                  + " changed since, nothing is written and the call is refused (conflict).",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"id\":{\"type\":\"string\"},"
                  + "\"text\":{\"type\":\"string\"},"
                  + "\"updatedAt\":{\"type\":\"string\",\"description\":\"ISO instant\"}},"
                  + "\"required\":[\"id\",\"text\",\"updatedAt\"],\"additionalProperties\":false}",
              ToolSpec.Effect.WRITE),
          new ToolSpec(
              StandardTools.MEMORY_HISTORY,
              "The history of one memory, oldest first: added, updated (with the earlier text),"
                  + " status changes, supersessions, trust changes; a forgotten memory shows only"
                  + " that it was forgotten.",
              "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},"
                  + "\"required\":[\"id\"],\"additionalProperties\":false}",
              ToolSpec.Effect.READ));

  private final VectorMemoryProvider provider;
  private final VectorMemoryTools tools;
  private final MemoryItemJson itemJson;
  private final Object[] locks = new Object[64];

  MemoryAdminTools(VectorMemoryProvider provider, VectorMemoryTools tools, MemoryItemJson json) {
    this.provider = provider;
    this.tools = tools;
    this.itemJson = json;
    for (int i = 0; i < locks.length; i++) {
      locks[i] = new Object();
    }
  }

  /** The lock of one memory id: edits, status changes and deletes of it take turns. */
  Object lock(String id) {
    return locks[Math.floorMod(id.hashCode(), locks.length)];
  }

  // ------------------------------------------------------------------ count

  ObjectNode count(ToolCall call) {
    Set<String> allowed = new java.util.HashSet<>(VectorMemoryTools.FILTER_ARGS);
    allowed.add("text");
    allowed.add("allOwners");
    ToolArguments args = ToolArguments.parse(call).requireOnly(allowed);
    Filter.Expression visible;
    if (args.optionalBoolean("allOwners", false)) {
      if (call.owner() != null) {
        throw ToolException.invalidArgument(
            "allOwners", "counts every owner; call it without an owner");
      }
      // the agent's whole memory: every owner's personal records, its team ones, global ones
      visible =
          MemoryFilters.or(
              MemoryFilters.eq(MemoryVectorStore.AGENT, call.agent().value()),
              MemoryFilters.eq(MemoryVectorStore.SCOPE, Scope.GLOBAL.name()));
    } else {
      visible = MemoryFilters.visibleTo(call.agent(), call.owner());
    }
    Filter.Expression filter = tools.filter(visible, args, Set.of(MemoryStatus.values()));
    String text = args.optionalText("text");
    // one pass per key, every match of the text (no cap); the total is every status's
    MemoryVectorStore store = provider.parts().store();
    Map<String, Long> statuses = store.countBy(MemoryVectorStore.STATUS, filter, text);
    ObjectNode answer = itemJson.json().createObjectNode();
    answer.put("total", statuses.values().stream().mapToLong(Long::longValue).sum());
    ObjectNode byStatus = answer.putObject("byStatus");
    statuses.forEach((status, n) -> byStatus.put(wireStatus(status), n));
    ObjectNode byType = answer.putObject("byType");
    store.countBy(MemoryVectorStore.TYPE, filter, text).forEach(byType::put);
    return answer;
  }

  /** A stored status as the tools name it ({@code ACTIVE}: {@code active}). */
  private static String wireStatus(String stored) {
    try {
      return MemoryStatus.valueOf(stored).wireName();
    } catch (IllegalArgumentException e) {
      return stored.toLowerCase(Locale.ROOT);
    }
  }

  // ------------------------------------------------------------------ owners

  /**
   * {@code list_owners}: the agent's owners from the store's index ({@link
   * MemoryVectorStore#owners}); with an owner in the call, that owner alone, counted.
   */
  ObjectNode owners(ToolCall call) {
    ToolArguments args =
        ToolArguments.parse(call).requireOnly(Set.of("offset", "limit", "q", "prefix", "counts"));
    boolean counts = args.optionalBoolean("counts", true);
    int offset = args.optionalInt("offset", 0, 1_000_000, 0);
    int limit = args.optionalInt("limit", 1, counts ? MAX_OWNERS_PAGE : MAX_KEYS_PAGE, 50);
    String q = args.optionalText("q");
    String prefix = args.optionalString("prefix");
    if (prefix != null && prefix.isEmpty()) {
      prefix = null;
    }
    MemoryVectorStore.OwnerPage page;
    if (call.owner() == null) {
      page = provider.parts().store().owners(call.agent().value(), prefix, q, offset, limit);
    } else {
      String key = call.owner().value();
      boolean matches =
          (prefix == null || key.startsWith(prefix))
              && (q == null || key.toLowerCase(Locale.ROOT).contains(q.toLowerCase(Locale.ROOT)));
      long n =
          matches
              ? provider
                  .parts()
                  .store()
                  .count(
                      MemoryFilters.and(
                          MemoryFilters.and(
                              MemoryFilters.eq(MemoryVectorStore.AGENT, call.agent().value()),
                              MemoryFilters.eq(MemoryVectorStore.SCOPE, Scope.PERSONAL.name())),
                          MemoryFilters.ofOwner(call.owner())))
              : 0;
      List<MemoryVectorStore.OwnerCount> one =
          n > 0 && offset == 0 ? List.of(new MemoryVectorStore.OwnerCount(key, n)) : List.of();
      page = new MemoryVectorStore.OwnerPage(n > 0 ? 1 : 0, one);
    }
    ObjectNode answer = itemJson.json().createObjectNode();
    answer.put("total", page.total());
    answer.put("offset", offset);
    answer.put("limit", limit);
    ArrayNode owners = answer.putArray("owners");
    for (MemoryVectorStore.OwnerCount owner : page.owners()) {
      ObjectNode one = owners.addObject().put("ownerKey", owner.owner());
      if (counts) {
        one.put("count", owner.count());
      }
    }
    return answer;
  }

  // ------------------------------------------------------------------ get

  ObjectNode get(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("id"));
    ObjectNode item = itemJson.of(tools.visibleRecord(call, args.requiredText("id")), null);
    itemJson.withTrust(provider.parts().trust(), call.owner(), List.of(item));
    return item;
  }

  // ------------------------------------------------------------------ edit

  ObjectNode edit(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("id", "text", "updatedAt"));
    String id = args.requiredText("id");
    String text = args.requiredText("text").strip();
    int max = provider.parts().settings().chunkSize();
    if (text.length() > max) {
      throw ToolArgumentErrors.invalid(
          "text", "is longer than " + max + " characters (chunk-size); keep one statement");
    }
    Instant expected;
    try {
      expected = Instant.parse(args.requiredText("updatedAt"));
    } catch (DateTimeParseException e) {
      throw ToolException.invalidArgument(
          "updatedAt",
          "must be an ISO instant such as 2026-01-31T09:00:00.123Z: " + e.getMessage());
    }
    synchronized (lock(id)) {
      MemoryRecord record = tools.writableRecord(call, id);
      Instant current = updatedAt(record);
      if (!current.equals(Instant.ofEpochMilli(expected.toEpochMilli()))) {
        throw new ToolException(
            ToolException.Kind.CONFLICT,
            call.name()
                + ": memory "
                + id
                + " was changed at "
                + current
                + ", after the updatedAt given ("
                + expected
                + "); read it again and edit that");
      }
      String before = MemoryTexts.undated(record.text());
      if (before.equals(text)) {
        ObjectNode same = itemJson.of(record, null);
        same.put("changed", false);
        return same;
      }
      String prefix = record.text().substring(0, record.text().length() - before.length());
      Instant now = provider.now();
      if (!now.isAfter(current)) {
        now = current.plusMillis(1); // every change moves updatedAt: a stale read stays stale
      }
      MemoryRecord edited =
          record.withText(prefix + text).withExtra(UPDATED_AT, now.toEpochMilli());
      provider.parts().store().add(List.of(edited.toDocument()));
      Map<String, String> details = new LinkedHashMap<>();
      details.put("text", text);
      details.put("previous", before);
      record(edited, "updated", call.actor(), now, details);
      ObjectNode answer = itemJson.of(edited, null);
      answer.put("changed", true);
      return answer;
    }
  }

  // ------------------------------------------------------------------ history

  ObjectNode history(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("id"));
    String id = args.requiredText("id");
    MemoryRecord record =
        provider.parts().store().get(id).map(MemoryRecord::fromDocument).orElse(null);
    List<HistoryEvent> events = provider.parts().store().history().of(id);
    ObjectNode answer = itemJson.json().createObjectNode();
    answer.put("id", id);
    ArrayNode out = answer.putArray("events");
    if (record == null) {
      // a forgotten memory: its history tells only that, to whoever could see it
      boolean visible =
          !events.isEmpty()
              && events.stream()
                  .allMatch(
                      e ->
                          e.agent().equals(call.agent())
                              && (e.owner() == null || e.owner().equals(call.owner())));
      if (!visible) {
        throw VectorMemoryTools.notFound(call, id);
      }
      events.forEach(e -> out.add(event(e)));
      answer.put("forgotten", true);
      return answer;
    }
    if (!VectorMemoryProvider.visible(record, call.agent(), call.owner())) {
      throw VectorMemoryTools.notFound(call, id);
    }
    ObjectNode added = out.addObject();
    added.put("at", record.createdAt().toString());
    added.put("event", "added");
    String first =
        events.stream()
            .filter(e -> e.event().equals("updated") && e.details().containsKey("previous"))
            .map(e -> e.details().get("previous"))
            .findFirst()
            .orElse(MemoryTexts.undated(record.text()));
    added.put("text", first);
    Object source = record.extra().get("source");
    if (source != null) {
      added.put("source", source.toString());
    }
    events.forEach(e -> out.add(event(e)));
    answer.put("forgotten", false);
    return answer;
  }

  private ObjectNode event(HistoryEvent event) {
    ObjectNode node = itemJson.json().createObjectNode();
    node.put("at", event.at().toString());
    node.put("event", event.event());
    if (event.actor() != null) {
      node.put("actor", event.actor());
    }
    event.details().forEach(node::put);
    return node;
  }

  // ------------------------------------------------------------------ recording

  /**
   * Appends one event to the history of {@code record}. The change it describes has happened: a
   * history that cannot be written is logged, never undoes or fails the change.
   */
  void record(
      MemoryRecord record, String event, String actor, Instant at, Map<String, String> details) {
    provider.parts().store().history().record(record, at, event, actor, details);
  }

  /** Forgets {@code record} in the history: its events go, one {@code forgotten} event stays. */
  void forgotten(MemoryRecord record, String actor) {
    provider
        .parts()
        .store()
        .history()
        .forget(
            new HistoryEvent(
                record.id(),
                record.agent(),
                record.owner(),
                provider.now(),
                HistoryEvent.FORGOTTEN,
                actor,
                Map.of()));
  }

  /** When a record last changed: its {@code updated_at}, else its creation. */
  static Instant updatedAt(MemoryRecord record) {
    return record.updatedAt();
  }

  static List<String> names() {
    List<String> names = new ArrayList<>();
    SPECS.forEach(s -> names.add(s.name()));
    return names;
  }
}
