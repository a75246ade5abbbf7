package dev.memstack.vector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ToolArguments;
import dev.memstack.vector.contradictions.Contradiction;
import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.lifecycle.MergeCandidates;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.ai.vectorstore.filter.Filter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The agent-callable tools of {@link VectorMemoryProvider}: JSON in, JSON out.
 *
 * <p>Each section is one tool over the same provider; the tools share the visibility and write
 * checks and the scope filters. {@code remember} and its supersession live in {@link RememberTool},
 * the item JSON in {@link MemoryItemJson}.
 */
final class VectorMemoryTools {

  static final String FILTER_PROPS =
      "\"type\":{\"description\":\"memory type(s): FACT, DECISION, PREFERENCE, TASK_PROGRESS,"
          + " REFERENCE, RAW or custom\",\"oneOf\":[{\"type\":\"string\"},{\"type\":\"array\","
          + "\"items\":{\"type\":\"string\"}}]},"
          + "\"status\":{\"description\":\"active, archived, suppressed, superseded, pending (one or a"
          + " list), or any\","
          + "\"oneOf\":[{\"type\":\"string\"},{\"type\":\"array\",\"items\":{\"type\":\"string\"}}]},"
          + "\"scope\":{\"type\":\"string\",\"enum\":[\"personal\",\"team\",\"global\"]},"
          + "\"since\":{\"type\":\"string\",\"description\":\"ISO date or instant, inclusive\"},"
          + "\"until\":{\"type\":\"string\",\"description\":\"ISO date or instant, exclusive\"}";

  static final List<ToolSpec> SPECS =
      List.of(
          new ToolSpec(
              "remember",
              "Store a memory (a fact, decision, preference, task progress or reference) for the"
                  + " current owner (scope personal, the default), for every owner of this agent"
                  + " (team) or for every agent (global). A near-identical existing memory is not"
                  + " stored again; its id is returned instead. A statement that changes a value of"
                  + " an existing one (a negation, a number, a name, a date, a yes/no answer)"
                  + " supersedes it: the old memory is kept as history but no longer recalled, and"
                  + " its id is returned in supersedes (with the contradiction check on, the new one"
                  + " is stored pending instead, and the pair waits in the owner's contradiction"
                  + " inbox: list_contradictions). With a name, the active memory of the same"
                  + " name, type and scope (and owner) is updated in place instead: same text,"
                  + " nothing changes; new text replaces it, and the earlier text is returned in"
                  + " previous.",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"text\":{\"type\":\"string\",\"description\":\"the memory, one statement\"},"
                  + "\"scope\":{\"type\":\"string\",\"enum\":[\"personal\",\"team\",\"global\"]},"
                  + "\"type\":{\"type\":\"string\",\"description\":\"FACT (default), DECISION,"
                  + " PREFERENCE, TASK_PROGRESS, REFERENCE or a custom type of this agent"
                  + " (memory_list_types)\"},"
                  + "\"name\":{\"type\":\"string\",\"maxLength\":"
                  + RememberTool.MAX_NAME
                  + ",\"description\":\"a short title; remembering again with the same name,"
                  + " type and scope updates that memory in place\"}},"
                  + "\"required\":[\"text\"],\"additionalProperties\":false}",
              ToolSpec.Effect.WRITE),
          new ToolSpec(
              "recall",
              "Search the memories the current owner may see by meaning and keywords, best first."
                  + " Active memories only unless status says otherwise.",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"query\":{\"type\":\"string\"},"
                  + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50},"
                  + FILTER_PROPS
                  + "},\"required\":[\"query\"],\"additionalProperties\":false}",
              ToolSpec.Effect.READ),
          new ToolSpec(
              "list_memories",
              "List the memories the current owner may see, newest first, in pages. Every status"
                  + " unless status says otherwise; text keeps those that hold its words.",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"offset\":{\"type\":\"integer\",\"minimum\":0},"
                  + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100},"
                  + "\"text\":{\"type\":\"string\",\"description\":\"words the text holds\"},"
                  + FILTER_PROPS
                  + "},\"additionalProperties\":false}",
              ToolSpec.Effect.READ),
          new ToolSpec(
              "update_memory_status",
              "Archive (active to archived), suppress (active to suppressed) or activate (archived,"
                  + " suppressed or superseded to active) one memory. Only active memories are"
                  + " recalled. Activating a shared memory that your wrong marks hid from your"
                  + " recall shows it to you again (for you alone).",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"id\":{\"type\":\"string\"},"
                  + "\"status\":{\"type\":\"string\",\"enum\":[\"active\",\"archived\","
                  + "\"suppressed\"]}},\"required\":[\"id\",\"status\"],"
                  + "\"additionalProperties\":false}",
              ToolSpec.Effect.WRITE),
          new ToolSpec(
              "delete_memory",
              "Delete one memory for good.",
              "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},"
                  + "\"required\":[\"id\"],\"additionalProperties\":false}",
              ToolSpec.Effect.DESTRUCTIVE),
          new ToolSpec(
              "find_merge_candidates",
              "Find pairs of the current owner's active personal memories that say nearly the same"
                  + " (cosine similarity at least the threshold, merge-threshold by default), most"
                  + " similar first, so they can be merged or one archived.",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"threshold\":{\"type\":\"number\",\"minimum\":0.5,\"maximum\":1},"
                  + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100}},"
                  + "\"additionalProperties\":false}",
              ToolSpec.Effect.READ));

  static final Set<String> FILTER_ARGS = Set.of("type", "status", "scope", "since", "until");

  private final VectorMemoryProvider provider;
  private final JsonMapper json = JsonMapper.builder().build();
  private final MemoryItemJson itemJson = new MemoryItemJson(json);
  private final RememberTool remember;
  private final MemoryAdminTools admin;
  private final TypeTools typeTools;
  private final ContradictionTools contradictions;
  private final ConsolidationTool consolidation;

  /**
   * The memory tools, the admin tools ({@link MemoryAdminTools}), the inbox tools and the
   * consolidation tool.
   */
  static final List<ToolSpec> ALL_SPECS =
      java.util.stream.Stream.of(
              SPECS, MemoryAdminTools.SPECS, ContradictionTools.SPECS, ConsolidationTool.SPECS)
          .flatMap(List::stream)
          .toList();

  VectorMemoryTools(VectorMemoryProvider provider) {
    this.provider = provider;
    this.admin = new MemoryAdminTools(provider, this, itemJson);
    this.remember = new RememberTool(provider, itemJson, admin);
    this.typeTools = new TypeTools(provider, json);
    this.contradictions = new ContradictionTools(provider, itemJson, admin);
    this.consolidation = new ConsolidationTool(provider.parts().consolidation(), json);
  }

  String call(ToolCall call) {
    ObjectNode answer =
        switch (call.name()) {
          case "remember" -> remember.remember(call);
          case "recall" -> recall(call);
          case "list_memories" -> list(call);
          case "update_memory_status" -> updateStatus(call);
          case "delete_memory" -> delete(call);
          case "find_merge_candidates" -> mergeCandidates(call);
          case "count_memories" -> admin.count(call);
          case StandardTools.LIST_OWNERS -> admin.owners(call);
          case "get_memory" -> admin.get(call);
          case "edit_memory" -> admin.edit(call);
          case "memory_history" -> admin.history(call);
          case StandardTools.LIST_CONTRADICTIONS, StandardTools.RESOLVE_CONTRADICTION ->
              contradictions.call(call);
          case StandardTools.RUN_STRUCTURED_CONSOLIDATION -> consolidation.call(call);
          case TypeTools.LIST, TypeTools.CREATE, TypeTools.DELETE, TypeTools.STATS ->
              typeTools.call(call);
          default ->
              throw new ToolException(
                  ToolException.Kind.NOT_FOUND,
                  "provider " + provider.id() + " has no tool " + call.name());
        };
    return json.writeValueAsString(answer);
  }

  // ------------------------------------------------------------------ recall, list

  private ObjectNode recall(ToolCall call) {
    Set<String> allowed = new java.util.HashSet<>(FILTER_ARGS);
    allowed.add("query");
    allowed.add("limit");
    ToolArguments args = ToolArguments.parse(call).requireOnly(allowed);
    String query = args.requiredText("query");
    int limit = args.optionalInt("limit", 1, 50, Math.min(provider.parts().settings().topK(), 10));
    Filter.Expression filter = filter(call, args, EnumSet.of(MemoryStatus.ACTIVE));
    List<RecallRanker.Ranked> ranked = provider.rank(query, filter, limit);
    Map<String, Contradiction> disputed =
        provider
            .parts()
            .contradictions()
            .marks(ranked.stream().map(r -> r.document().getId()).toList());
    ObjectNode answer = json.createObjectNode();
    ArrayNode items = answer.putArray("items");
    for (RecallRanker.Ranked r : ranked) {
      ObjectNode item = itemJson.of(MemoryRecord.fromDocument(r.document()), r.score());
      Contradiction c = disputed.get(r.document().getId());
      if (c != null) {
        ContradictionTools.marked(item, c, provider.pending(c));
      }
      ObjectNode signals = item.putObject("signals");
      r.signals().forEach(signals::put);
      items.add(item);
    }
    return answer;
  }

  private ObjectNode list(ToolCall call) {
    Set<String> allowed = new java.util.HashSet<>(FILTER_ARGS);
    allowed.add("offset");
    allowed.add("limit");
    allowed.add("text");
    ToolArguments args = ToolArguments.parse(call).requireOnly(allowed);
    int offset = args.optionalInt("offset", 0, 1_000_000, 0);
    int limit = args.optionalInt("limit", 1, 100, 20);
    Filter.Expression filter = filter(call, args, EnumSet.allOf(MemoryStatus.class));
    String text = args.optionalText("text");
    MemoryVectorStore store = provider.parts().store();
    ObjectNode answer = json.createObjectNode();
    // every match of the text (no cap), newest first, counted and paged by the store
    answer.put("total", store.count(filter, text));
    List<MemoryRecord> page =
        store.list(filter, text, offset, limit).stream().map(MemoryRecord::fromDocument).toList();
    answer.put("offset", offset);
    answer.put("limit", limit);
    ArrayNode items = answer.putArray("items");
    List<ObjectNode> listed = new ArrayList<>(page.size());
    for (MemoryRecord record : page) {
      ObjectNode item = itemJson.of(record, null);
      listed.add(item);
      items.add(item);
    }
    itemJson.withTrust(provider.parts().trust(), call.owner(), listed);
    return answer;
  }

  Filter.Expression filter(ToolCall call, ToolArguments args, Set<MemoryStatus> defaultStatuses) {
    return filter(MemoryFilters.visibleTo(call.agent(), call.owner()), args, defaultStatuses);
  }

  /** {@code visible} narrowed by the filter arguments ({@link #FILTER_PROPS}). */
  Filter.Expression filter(
      Filter.Expression visible, ToolArguments args, Set<MemoryStatus> defaultStatuses) {
    Filter.Expression filter = visible;
    List<String> statuses = args.stringList("status");
    if (statuses.isEmpty()) {
      if (defaultStatuses.size() < MemoryStatus.values().length) {
        filter = MemoryFilters.and(filter, MemoryFilters.status(defaultStatuses));
      }
    } else if (!(statuses.size() == 1 && statuses.get(0).equalsIgnoreCase("any"))) {
      List<MemoryStatus> parsed = new ArrayList<>();
      for (String status : statuses) {
        try {
          parsed.add(MemoryStatus.parse(status));
        } catch (IllegalArgumentException e) {
          throw ToolException.invalidArgument("status", e.getMessage() + " (or any)");
        }
      }
      filter = MemoryFilters.and(filter, MemoryFilters.status(parsed));
    }
    List<String> types = args.stringList("type");
    if (!types.isEmpty()) {
      List<String> normalized = new ArrayList<>();
      for (String type : types) {
        try {
          normalized.add(MemoryRecord.normalizeType(type));
        } catch (IllegalArgumentException e) {
          throw ToolException.invalidArgument("type", e.getMessage());
        }
      }
      filter = MemoryFilters.and(filter, MemoryFilters.in(MemoryVectorStore.TYPE, normalized));
    }
    String scope = args.optionalText("scope");
    if (scope != null) {
      Scope parsed = scope(scope);
      filter = MemoryFilters.and(filter, MemoryFilters.eq(MemoryVectorStore.SCOPE, parsed.name()));
    }
    Instant since = args.optionalInstant("since");
    if (since != null) {
      filter = MemoryFilters.and(filter, MemoryFilters.createdFrom(since));
    }
    Instant until = args.optionalInstant("until");
    if (until != null) {
      filter = MemoryFilters.and(filter, MemoryFilters.createdBefore(until));
    }
    return filter;
  }

  // ------------------------------------------------------------------ status, delete

  private ObjectNode updateStatus(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("id", "status"));
    String id = args.requiredText("id");
    MemoryStatus target;
    try {
      target = MemoryStatus.parse(args.requiredText("status"));
    } catch (IllegalArgumentException e) {
      throw ToolException.invalidArgument("status", e.getMessage());
    }
    if (target == MemoryStatus.SUPERSEDED || target == MemoryStatus.PENDING) {
      throw ToolException.invalidArgument(
          "status",
          "status "
              + target.wireName()
              + " is set by remember, when a newer statement replaces or contradicts a memory;"
              + " use active, archived or suppressed");
    }
    synchronized (admin.lock(id)) {
      return updateStatus(call, id, target);
    }
  }

  private ObjectNode updateStatus(ToolCall call, String id, MemoryStatus target) {
    MemoryRecord visible = visibleRecord(call, id);
    if (target == MemoryStatus.ACTIVE
        && visible.scope() != Scope.PERSONAL
        && call.owner() != null
        && provider.showAgain(call.owner(), id)) {
      // a shared memory the owner's wrongs hid from their recall: shown to them again, for them
      // alone; its status, and every other owner's view of it, unchanged (no history: a shared
      // memory's history says nothing of one owner's judgement)
      ObjectNode answer = json.createObjectNode();
      answer.put("id", id);
      answer.put("status", visible.status().wireName());
      answer.put("previous", "hidden");
      answer.put("shownAgainTo", call.owner().value());
      return answer;
    }
    MemoryRecord record = writableRecord(call, id);
    MemoryStatus current = record.status();
    if (current == MemoryStatus.PENDING) {
      throw new ToolException(
          ToolException.Kind.CONFLICT,
          call.name()
              + ": memory "
              + id
              + " is pending: it contradicts an active memory; decide with"
              + " resolve_contradiction");
    }
    boolean allowed =
        target == MemoryStatus.ACTIVE
            ? current != MemoryStatus.ACTIVE
            : current == MemoryStatus.ACTIVE;
    if (!allowed) {
      throw new ToolException(
          ToolException.Kind.CONFLICT,
          call.name()
              + ": memory "
              + id
              + " is "
              + current.wireName()
              + "; only active memories can be archived or suppressed, and only archived,"
              + " suppressed or superseded ones activated");
    }
    Map<String, Object> changes = new java.util.LinkedHashMap<>();
    changes.put(MemoryVectorStore.STATUS, target.name());
    if (target == MemoryStatus.ACTIVE && Lifecycle.tracked(record.extra())) {
      // awakened: a decayed record gets a fair weight back and its decay starts again from now
      changes.put(
          Lifecycle.WEIGHT, Math.max(Lifecycle.weight(record.extra()), Lifecycle.AWAKENED_WEIGHT));
      changes.put(Lifecycle.DECAYED_AT, provider.now().toEpochMilli());
      changes.put(Lifecycle.ARCHIVED_BY, null);
    }
    if (target == MemoryStatus.ACTIVE && current == MemoryStatus.SUPERSEDED) {
      // undoes a supersession: the newer memory stays active and keeps its supersedes as history
      changes.put(RememberTool.SUPERSEDED_BY, null);
      changes.put(RememberTool.SUPERSEDED_AT, null);
    }
    Instant now = provider.now();
    Instant before = MemoryAdminTools.updatedAt(record);
    if (!now.isAfter(before)) {
      now = before.plusMillis(1); // every change moves updatedAt: a stale read stays stale
    }
    changes.put(MemoryAdminTools.UPDATED_AT, now.toEpochMilli());
    if (!provider.parts().store().updateMetadata(id, changes)) {
      throw notFound(call, id);
    }
    admin.record(
        record,
        "status",
        call.actor(),
        now,
        Map.of("status", target.wireName(), "previousStatus", current.wireName()));
    ObjectNode answer = json.createObjectNode();
    answer.put("id", id);
    answer.put("status", target.wireName());
    answer.put("previous", current.wireName());
    answer.put("updatedAt", now.toString());
    return answer;
  }

  private ObjectNode delete(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("id"));
    String id = args.requiredText("id");
    synchronized (admin.lock(id)) {
      MemoryRecord record = writableRecord(call, id);
      provider.parts().store().delete(List.of(id));
      admin.forgotten(record, call.actor());
      provider.parts().contradictions().forgotten(id, call.actor(), provider.now());
    }
    ObjectNode answer = json.createObjectNode();
    answer.put("id", id);
    answer.put("deleted", true);
    return answer;
  }

  // ------------------------------------------------------------------ merge candidates

  private ObjectNode mergeCandidates(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("threshold", "limit"));
    if (call.owner() == null) {
      throw new ToolException(
          ToolException.Kind.INVALID_ARGUMENT,
          call.name() + " needs an owner: it compares an owner's memories");
    }
    double threshold =
        args.optionalDouble(
            "threshold", 0.5, 1, provider.parts().lifecycleSettings().mergeThreshold());
    int limit = args.optionalInt("limit", 1, 100, 20);
    Filter.Expression filter =
        MemoryFilters.and(
            MemoryFilters.and(
                MemoryFilters.eq(MemoryVectorStore.AGENT, call.agent().value()),
                MemoryFilters.ofOwner(call.owner())),
            MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name()));
    List<MergeCandidates.Pair> pairs =
        provider.parts().mergeCandidates().find(filter, threshold, 300, limit);
    ObjectNode answer = json.createObjectNode();
    answer.put("threshold", threshold);
    ArrayNode items = answer.putArray("pairs");
    for (MergeCandidates.Pair pair : pairs) {
      ObjectNode item = items.addObject();
      item.put("similarity", Math.round(pair.similarity() * 10_000) / 10_000.0);
      item.set("first", itemJson.of(MemoryRecord.fromDocument(pair.first()), null));
      item.set("second", itemJson.of(MemoryRecord.fromDocument(pair.second()), null));
    }
    return answer;
  }

  /**
   * The record a write tool is about to change, once the caller may change it: another owner's
   * personal record is NOT_FOUND (as for a read), a record of a scope the caller may not write (a
   * TEAM or GLOBAL record for a caller limited to personal memory) FORBIDDEN, before anything
   * changes.
   */
  MemoryRecord writableRecord(ToolCall call, String id) {
    MemoryRecord record = visibleRecord(call, id);
    call.requireWritable(record.scope());
    return record;
  }

  MemoryRecord visibleRecord(ToolCall call, String id) {
    MemoryRecord record =
        provider
            .parts()
            .store()
            .get(id)
            .map(MemoryRecord::fromDocument)
            .orElseThrow(() -> notFound(call, id));
    if (!VectorMemoryProvider.visible(record, call.agent(), call.owner())) {
      // not "forbidden": another owner's memory must not even be known to exist
      throw notFound(call, id);
    }
    return record;
  }

  static ToolException notFound(ToolCall call, String id) {
    return new ToolException(
        ToolException.Kind.NOT_FOUND,
        call.name()
            + ": no memory "
            + id
            + " that "
            + describe(call.agent(), call.owner())
            + " may see");
  }

  private static String describe(AgentId agent, OwnerKey owner) {
    return owner == null ? "agent " + agent : owner + " of agent " + agent;
  }

  static Scope scope(String text) {
    try {
      return VectorMemoryProvider.scopeOf(text);
    } catch (IllegalArgumentException e) {
      throw ToolException.invalidArgument("scope", e.getMessage());
    }
  }
}
