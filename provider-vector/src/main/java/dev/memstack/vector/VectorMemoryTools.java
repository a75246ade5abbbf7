package dev.memstack.vector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ToolArgumentErrors;
import dev.memstack.support.ToolArguments;
import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.lifecycle.MergeCandidates;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.text.Supersession;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The agent-callable tools of {@link VectorMemoryProvider}: JSON in, JSON out.
 *
 * <p>One class on purpose (~620 lines): each section is one tool over the same provider, and the
 * tools share the visibility and write checks, the scope filters and the item JSON.
 */
final class VectorMemoryTools {

  private static final String FILTER_PROPS =
      "\"type\":{\"description\":\"memory type(s): FACT, DECISION, PREFERENCE, TASK_PROGRESS,"
          + " REFERENCE, RAW or custom\",\"oneOf\":[{\"type\":\"string\"},{\"type\":\"array\","
          + "\"items\":{\"type\":\"string\"}}]},"
          + "\"status\":{\"description\":\"active, archived, suppressed, superseded (one or a"
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
                  + " its id is returned in supersedes.",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"text\":{\"type\":\"string\",\"description\":\"the memory, one statement\"},"
                  + "\"scope\":{\"type\":\"string\",\"enum\":[\"personal\",\"team\",\"global\"]},"
                  + "\"type\":{\"type\":\"string\",\"description\":\"FACT (default), DECISION,"
                  + " PREFERENCE, TASK_PROGRESS, REFERENCE or a custom name\"}},"
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
                  + " unless status says otherwise.",
              "{\"type\":\"object\",\"properties\":{"
                  + "\"offset\":{\"type\":\"integer\",\"minimum\":0},"
                  + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100},"
                  + FILTER_PROPS
                  + "},\"additionalProperties\":false}",
              ToolSpec.Effect.READ),
          new ToolSpec(
              "update_memory_status",
              "Archive (active to archived), suppress (active to suppressed) or activate (archived,"
                  + " suppressed or superseded to active) one memory. Only active memories are"
                  + " recalled.",
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

  private static final Set<String> FILTER_ARGS =
      Set.of("type", "status", "scope", "since", "until");

  private final VectorMemoryProvider provider;
  private final JsonMapper json = JsonMapper.builder().build();

  VectorMemoryTools(VectorMemoryProvider provider) {
    this.provider = provider;
  }

  String call(ToolCall call) {
    ObjectNode answer =
        switch (call.name()) {
          case "remember" -> remember(call);
          case "recall" -> recall(call);
          case "list_memories" -> list(call);
          case "update_memory_status" -> updateStatus(call);
          case "delete_memory" -> delete(call);
          case "find_merge_candidates" -> mergeCandidates(call);
          default ->
              throw new ToolException(
                  ToolException.Kind.NOT_FOUND,
                  "provider " + provider.id() + " has no tool " + call.name());
        };
    return json.writeValueAsString(answer);
  }

  // ------------------------------------------------------------------ remember

  private ObjectNode remember(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("text", "scope", "type"));
    String text = args.requiredText("text").strip();
    int max = provider.settings().chunkSize();
    if (text.length() > max) {
      throw ToolArgumentErrors.invalid(
          "text",
          "is longer than "
              + max
              + " characters (chunk-size); store one short statement per memory");
    }
    Scope scope = scope(Objects.requireNonNullElse(args.optionalText("scope"), "personal"));
    String type;
    try {
      type =
          MemoryRecord.normalizeType(Objects.requireNonNullElse(args.optionalText("type"), "FACT"));
    } catch (IllegalArgumentException e) {
      throw ToolException.invalidArgument("type", e.getMessage());
    }
    OwnerKey owner = null;
    if (scope == Scope.PERSONAL) {
      if (call.owner() == null) {
        throw ToolException.invalidArgument(
            "scope", "a personal memory needs an owner; call with an owner or scope team");
      }
      owner = call.owner();
    }
    call.requireWritable(scope);
    MemoryRecord record =
        MemoryTexts.remembered(call.agent(), owner, scope, type, text, provider.now());
    MemoryVectorStore store = provider.store();

    Optional<MemoryRecord> sameId = store.get(record.id()).map(MemoryRecord::fromDocument);
    if (sameId.isPresent() && sameId.get().status() != MemoryStatus.SUPERSEDED) {
      return duplicateAnswer(sameId.get(), List.of());
    }
    // a superseded record of the same text is stated again: it is stored anew (same id), active
    Verdicts verdicts = judgeNeighbours(record);
    if (verdicts.duplicate() != null) {
      MemoryRecord existing = verdicts.duplicate();
      List<MemoryRecord> outdated =
          existing.status() == MemoryStatus.ACTIVE ? verdicts.outdated() : List.of();
      if (!outdated.isEmpty()) {
        store.updateMetadata(
            existing.id(), Map.of(SUPERSEDES, supersedes(existing.extra(), outdated)));
        supersede(outdated, existing.id());
        existing = store.get(existing.id()).map(MemoryRecord::fromDocument).orElse(existing);
      }
      return duplicateAnswer(existing, outdated);
    }
    List<MemoryRecord> outdated = verdicts.outdated();
    if (!outdated.isEmpty()) {
      record = record.withExtra(SUPERSEDES, supersedes(Map.of(), outdated));
    }
    // the new record first: a failure in between leaves both active, never neither
    store.add(List.of(record.toDocument()));
    supersede(outdated, record.id());
    ObjectNode answer = json.createObjectNode();
    answer.put("stored", true);
    answer.put("id", record.id());
    answer.set("memory", itemJson(record, null));
    supersededJson(answer, outdated);
    return answer;
  }

  /** Metadata key of a record that replaced others: their ids, comma-separated. */
  static final String SUPERSEDES = "supersedes";

  /** Metadata key of a SUPERSEDED record: the id of the record that replaced it. */
  static final String SUPERSEDED_BY = "superseded_by";

  /** Metadata key of a SUPERSEDED record: when it was replaced (epoch millis). */
  static final String SUPERSEDED_AT = "superseded_at";

  /** How many nearest records (by vector, and by keywords) a new memory is compared with. */
  private static final int NEIGHBOURS = 5;

  /**
   * What the nearest records are to the new one: the first duplicate (nearest first), and the
   * ACTIVE records whose value it changes.
   */
  private record Verdicts(MemoryRecord duplicate, List<MemoryRecord> outdated) {}

  /**
   * Compares the new record with its nearest records in the same scope (and owner): the {@value
   * #NEIGHBOURS} nearest by vector and the {@value #NEIGHBOURS} best keyword hits, any status but
   * SUPERSEDED (history is not compared). Each pair is judged by {@link Supersession}, with the
   * vector hits' cosine against {@code dedupe-threshold}.
   */
  private Verdicts judgeNeighbours(MemoryRecord record) {
    MemoryVectorStore store = provider.store();
    Filter.Expression candidates =
        MemoryFilters.and(
            sameScope(record),
            MemoryFilters.status(
                EnumSet.of(MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED, MemoryStatus.SUPPRESSED)));
    String text = MemoryTexts.undated(record.text());
    float[] vector = provider.embedder().embedPassages(List.of(record.embeddingText())).get(0);
    Map<String, Document> neighbours = new java.util.LinkedHashMap<>();
    Map<String, Double> cosines = new java.util.HashMap<>();
    for (Document hit : store.vectorSearch(vector, candidates, NEIGHBOURS, -1)) {
      neighbours.put(hit.getId(), hit);
      if (hit.getScore() != null) {
        cosines.put(hit.getId(), hit.getScore());
      }
    }
    for (Document hit : store.keywordSearch(text, candidates, NEIGHBOURS)) {
      neighbours.putIfAbsent(hit.getId(), hit); // a keyword score is no cosine
    }
    double near = provider.settings().dedupeThreshold();
    MemoryRecord duplicate = null;
    List<MemoryRecord> outdated = new ArrayList<>();
    for (Document hit : neighbours.values()) {
      MemoryRecord neighbour = MemoryRecord.fromDocument(hit);
      if (neighbour.id().equals(record.id())) {
        continue;
      }
      Supersession.Verdict verdict =
          Supersession.judge(
              MemoryTexts.undated(neighbour.text()),
              text,
              cosines.getOrDefault(neighbour.id(), Double.NaN),
              near);
      if (verdict == Supersession.Verdict.DUPLICATE && duplicate == null) {
        duplicate = neighbour;
      } else if (verdict == Supersession.Verdict.UPDATE
          && neighbour.status() == MemoryStatus.ACTIVE) {
        outdated.add(neighbour);
      }
    }
    return new Verdicts(duplicate, List.copyOf(outdated));
  }

  private void supersede(List<MemoryRecord> outdated, String by) {
    for (MemoryRecord old : outdated) {
      provider
          .store()
          .updateMetadata(
              old.id(),
              Map.of(
                  MemoryVectorStore.STATUS,
                  MemoryStatus.SUPERSEDED.name(),
                  SUPERSEDED_BY,
                  by,
                  SUPERSEDED_AT,
                  provider.now().toEpochMilli()));
    }
  }

  private static String supersedes(Map<String, Object> extra, List<MemoryRecord> outdated) {
    java.util.LinkedHashSet<String> ids = new java.util.LinkedHashSet<>();
    Object earlier = extra.get(SUPERSEDES);
    if (earlier != null && !earlier.toString().isBlank()) {
      ids.addAll(List.of(earlier.toString().split(",")));
    }
    outdated.forEach(r -> ids.add(r.id()));
    return String.join(",", ids);
  }

  private ObjectNode duplicateAnswer(MemoryRecord existing, List<MemoryRecord> outdated) {
    ObjectNode answer = json.createObjectNode();
    answer.put("stored", false);
    answer.put("duplicateOf", existing.id());
    answer.set("memory", itemJson(existing, null));
    supersededJson(answer, outdated);
    return answer;
  }

  private void supersededJson(ObjectNode answer, List<MemoryRecord> outdated) {
    if (outdated.isEmpty()) {
      return;
    }
    ArrayNode ids = answer.putArray("supersedes");
    ArrayNode items = answer.putArray("superseded");
    for (MemoryRecord old : outdated) {
      ids.add(old.id());
      items.add(itemJson(old.withStatus(MemoryStatus.SUPERSEDED), null));
    }
  }

  private static Filter.Expression sameScope(MemoryRecord record) {
    Filter.Expression scope = MemoryFilters.eq(MemoryVectorStore.SCOPE, record.scope().name());
    return switch (record.scope()) {
      case GLOBAL -> scope;
      case TEAM ->
          MemoryFilters.and(
              scope, MemoryFilters.eq(MemoryVectorStore.AGENT, record.agent().value()));
      case PERSONAL ->
          MemoryFilters.and(
              MemoryFilters.and(
                  scope, MemoryFilters.eq(MemoryVectorStore.AGENT, record.agent().value())),
              MemoryFilters.eq(MemoryVectorStore.OWNER, record.owner().value()));
    };
  }

  // ------------------------------------------------------------------ recall, list

  private ObjectNode recall(ToolCall call) {
    Set<String> allowed = new java.util.HashSet<>(FILTER_ARGS);
    allowed.add("query");
    allowed.add("limit");
    ToolArguments args = ToolArguments.parse(call).requireOnly(allowed);
    String query = args.requiredText("query");
    int limit = args.optionalInt("limit", 1, 50, Math.min(provider.settings().topK(), 10));
    Filter.Expression filter = filter(call, args, EnumSet.of(MemoryStatus.ACTIVE));
    List<RecallRanker.Ranked> ranked = provider.rank(query, filter, limit);
    ObjectNode answer = json.createObjectNode();
    ArrayNode items = answer.putArray("items");
    for (RecallRanker.Ranked r : ranked) {
      ObjectNode item = itemJson(MemoryRecord.fromDocument(r.document()), r.score());
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
    ToolArguments args = ToolArguments.parse(call).requireOnly(allowed);
    int offset = args.optionalInt("offset", 0, 1_000_000, 0);
    int limit = args.optionalInt("limit", 1, 100, 20);
    Filter.Expression filter = filter(call, args, EnumSet.allOf(MemoryStatus.class));
    MemoryVectorStore store = provider.store();
    ObjectNode answer = json.createObjectNode();
    answer.put("total", store.count(filter));
    answer.put("offset", offset);
    answer.put("limit", limit);
    ArrayNode items = answer.putArray("items");
    for (Document doc : store.list(filter, offset, limit)) {
      items.add(itemJson(MemoryRecord.fromDocument(doc), null));
    }
    return answer;
  }

  private Filter.Expression filter(
      ToolCall call, ToolArguments args, Set<MemoryStatus> defaultStatuses) {
    Filter.Expression filter = MemoryFilters.visibleTo(call.agent(), call.owner());
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
    if (target == MemoryStatus.SUPERSEDED) {
      throw ToolException.invalidArgument(
          "status",
          "status superseded is set by remember, when a newer statement replaces a memory;"
              + " use active, archived or suppressed");
    }
    MemoryRecord record = writableRecord(call, id);
    MemoryStatus current = record.status();
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
      changes.put(SUPERSEDED_BY, null);
      changes.put(SUPERSEDED_AT, null);
    }
    if (!provider.store().updateMetadata(id, changes)) {
      throw notFound(call, id);
    }
    ObjectNode answer = json.createObjectNode();
    answer.put("id", id);
    answer.put("status", target.wireName());
    answer.put("previous", current.wireName());
    return answer;
  }

  private ObjectNode delete(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("id"));
    String id = args.requiredText("id");
    writableRecord(call, id);
    provider.store().delete(List.of(id));
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
        args.optionalDouble("threshold", 0.5, 1, provider.lifecycleSettings().mergeThreshold());
    int limit = args.optionalInt("limit", 1, 100, 20);
    Filter.Expression filter =
        MemoryFilters.and(
            MemoryFilters.and(
                MemoryFilters.eq(MemoryVectorStore.AGENT, call.agent().value()),
                MemoryFilters.ofOwner(call.owner())),
            MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name()));
    List<MergeCandidates.Pair> pairs =
        provider.mergeCandidates().find(filter, threshold, 300, limit);
    ObjectNode answer = json.createObjectNode();
    answer.put("threshold", threshold);
    ArrayNode items = answer.putArray("pairs");
    for (MergeCandidates.Pair pair : pairs) {
      ObjectNode item = items.addObject();
      item.put("similarity", Math.round(pair.similarity() * 10_000) / 10_000.0);
      item.set("first", itemJson(MemoryRecord.fromDocument(pair.first()), null));
      item.set("second", itemJson(MemoryRecord.fromDocument(pair.second()), null));
    }
    return answer;
  }

  /**
   * The record a write tool is about to change, once the caller may change it: another owner's
   * personal record is NOT_FOUND (as for a read), a record of a scope the caller may not write (a
   * TEAM or GLOBAL record for a caller limited to personal memory) FORBIDDEN, before anything
   * changes.
   */
  private MemoryRecord writableRecord(ToolCall call, String id) {
    MemoryRecord record = visibleRecord(call, id);
    call.requireWritable(record.scope());
    return record;
  }

  private MemoryRecord visibleRecord(ToolCall call, String id) {
    MemoryRecord record =
        provider
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

  private static ToolException notFound(ToolCall call, String id) {
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

  private static Scope scope(String text) {
    try {
      return VectorMemoryProvider.scopeOf(text);
    } catch (IllegalArgumentException e) {
      throw ToolException.invalidArgument("scope", e.getMessage());
    }
  }

  private ObjectNode itemJson(MemoryRecord record, Double score) {
    ObjectNode item = json.createObjectNode();
    item.put("id", record.id());
    item.put("text", MemoryTexts.undated(record.text()));
    if (score != null) {
      item.put("score", Math.round(score * 10_000) / 10_000.0);
    }
    item.put("scope", record.scope().name().toLowerCase(Locale.ROOT));
    if (record.owner() != null) {
      item.put("owner", record.owner().value());
    }
    item.put("type", record.type());
    item.put("status", record.status().wireName());
    item.put("createdAt", record.createdAt().toString());
    if (record.conversation() != null) {
      item.put("conversation", record.conversation());
    }
    if (record.turn() != null) {
      item.put("turn", record.turn());
    }
    Object role = record.extra().get("role");
    if (role != null) {
      item.put("role", role.toString());
    }
    Object reply = record.extra().get(MemoryTexts.REPLY);
    if (reply != null) {
      item.put("reply", reply.toString());
    }
    Object supersedes = record.extra().get(SUPERSEDES);
    if (supersedes != null && !supersedes.toString().isBlank()) {
      ArrayNode ids = item.putArray("supersedes");
      for (String id : supersedes.toString().split(",")) {
        ids.add(id);
      }
    }
    Object supersededBy = record.extra().get(SUPERSEDED_BY);
    if (supersededBy != null) {
      item.put("supersededBy", supersededBy.toString());
    }
    return item;
  }
}
