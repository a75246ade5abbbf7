package dev.memstack.builtin.tools;

import dev.memstack.builtin.extraction.DreamReports;
import dev.memstack.builtin.memory.MemoryItems;
import dev.memstack.builtin.memory.MemoryItems.HistoryEvent;
import dev.memstack.builtin.memory.MemoryItems.Item;
import dev.memstack.builtin.memory.WorkspaceMemory;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ControlCharacters;
import dev.memstack.support.ToolArguments;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The memory-admin tools of the builtin provider ({@link dev.memstack.spi.Capability#MEMORY_ADMIN},
 * the standard tools {@code list_memories}, {@code count_memories}, {@code list_owners}, {@code
 * get_memory}, {@code update_memory_status}, {@code edit_memory}, {@code delete_memory}, {@code
 * memory_history}) over {@link MemoryItems}: a memory is a bullet of {@code PROFILE.md} or {@code
 * MEMORY.md} or an entry of a daily note, in the owner's PERSONAL bucket (with per-owner memory on)
 * or the agent's TEAM bucket. GLOBAL files hold no such memories.
 *
 * <p>Owner: the call's, or the {@code ownerKey} argument when the host set none (as the file tools
 * take it). A memory the caller may not see is {@code NOT_FOUND}, as one that does not exist; a
 * change needs the caller's right to write the memory's scope ({@link ToolCall#requireWritable}),
 * checked before anything changes. A delete also replaces the memory's texts in the bucket's
 * dreaming reports and {@code DREAMS.md} ({@link DreamReports#scrub}).
 *
 * @param memory the workspace memory
 * @param reports the dreaming reports a forget scrubs
 */
public record MemoryAdminTools(WorkspaceMemory memory, DreamReports reports) {

  private static final Set<String> NAMES =
      Set.of(
          StandardTools.LIST_MEMORIES,
          StandardTools.COUNT_MEMORIES,
          StandardTools.LIST_OWNERS,
          StandardTools.GET_MEMORY,
          StandardTools.UPDATE_MEMORY_STATUS,
          StandardTools.EDIT_MEMORY,
          StandardTools.DELETE_MEMORY,
          StandardTools.MEMORY_HISTORY);

  private static final Set<String> FILTERS =
      Set.of("agentId", "ownerKey", "status", "type", "scope", "text", "since", "until");

  private static final List<String> STATUSES =
      List.of(MemoryItems.ACTIVE, MemoryItems.ARCHIVED, MemoryItems.SUPPRESSED);

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Whether {@code name} is one of these tools. */
  public boolean has(String name) {
    return NAMES.contains(name);
  }

  /** The tool specs. */
  public List<ToolSpec> specs() {
    return ToolSpecs.admin();
  }

  /** Runs one of the tools; the JSON answer. */
  public String call(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call);
    Set<String> allowed = new HashSet<>(FILTERS);
    switch (call.name()) {
      case StandardTools.LIST_MEMORIES -> allowed.addAll(List.of("offset", "limit"));
      case StandardTools.COUNT_MEMORIES -> allowed.add("allOwners");
      case StandardTools.LIST_OWNERS ->
          allowed = Set.of("agentId", "ownerKey", "offset", "limit", "q", "prefix", "counts");
      case StandardTools.UPDATE_MEMORY_STATUS ->
          allowed = Set.of("agentId", "ownerKey", "id", "status");
      case StandardTools.EDIT_MEMORY ->
          allowed = Set.of("agentId", "ownerKey", "id", "text", "updatedAt");
      default -> allowed = Set.of("agentId", "ownerKey", "id");
    }
    args.requireOnly(allowed);
    CallerArguments.checkAgent(call, args);
    OwnerKey owner = CallerArguments.owner(call, args);
    try {
      ObjectNode answer =
          switch (call.name()) {
            case StandardTools.LIST_MEMORIES -> list(call, owner, args);
            case StandardTools.COUNT_MEMORIES -> count(call, owner, args);
            case StandardTools.LIST_OWNERS -> owners(call, owner, args);
            case StandardTools.GET_MEMORY -> item(find(call, owner, args.requiredText("id")));
            case StandardTools.UPDATE_MEMORY_STATUS -> status(call, owner, args);
            case StandardTools.EDIT_MEMORY -> edit(call, owner, args);
            case StandardTools.DELETE_MEMORY -> delete(call, owner, args);
            case StandardTools.MEMORY_HISTORY -> history(call, owner, args);
            default ->
                throw new ToolException(ToolException.Kind.NOT_FOUND, "no tool " + call.name());
          };
      return JSON.writeValueAsString(answer);
    } catch (UncheckedIOException e) {
      throw new ToolException(
          ToolException.Kind.UNAVAILABLE, "workspace storage failed: " + e.getMessage(), e);
    }
  }

  // ---------------------------------------------------------------- reads

  private ObjectNode list(ToolCall call, OwnerKey owner, ToolArguments args) {
    int offset = args.optionalInt("offset", 0, 1_000_000, 0);
    int limit = args.optionalInt("limit", 1, 100, 20);
    List<Item> matching = matching(call, owner, args);
    ObjectNode answer = JSON.createObjectNode();
    answer.put("total", matching.size());
    answer.put("offset", offset);
    answer.put("limit", limit);
    ArrayNode items = answer.putArray("items");
    matching.stream().skip(offset).limit(limit).forEach(item -> items.add(item(item)));
    return answer;
  }

  private ObjectNode count(ToolCall call, OwnerKey owner, ToolArguments args) {
    List<Item> matching = matching(call, owner, args);
    ObjectNode answer = JSON.createObjectNode();
    answer.put("total", matching.size());
    ObjectNode byStatus = answer.putObject("byStatus");
    ObjectNode byType = answer.putObject("byType");
    for (Item item : matching) {
      byStatus.put(item.status(), byStatus.path(item.status()).asLong(0) + 1);
      byType.put(item.type(), byType.path(item.type()).asLong(0) + 1);
    }
    return answer;
  }

  /**
   * {@code list_owners}: the owners the agent keeps personal files for (per-owner memory on), in
   * code point order; each one's count reads its files, so only the page's owners are counted, and
   * none with {@code counts: false}. With an owner, that owner alone when it has files.
   */
  private ObjectNode owners(ToolCall call, OwnerKey owner, ToolArguments args) {
    boolean counts = args.optionalBoolean("counts", true);
    int offset = args.optionalInt("offset", 0, 1_000_000, 0);
    int limit = args.optionalInt("limit", 1, counts ? 1000 : 10_000, 50);
    String q = args.optionalText("q");
    String part = q == null ? null : q.toLowerCase(Locale.ROOT);
    String prefix = args.optionalString("prefix");
    memory.ensureAgent(call.agent());
    List<OwnerKey> all =
        memory.settings().perOwner() ? memory.owners(call.agent()) : List.<OwnerKey>of();
    List<String> keys =
        all.stream()
            .filter(o -> owner == null || o.equals(owner))
            .map(OwnerKey::value)
            .filter(key -> prefix == null || key.startsWith(prefix))
            .filter(key -> part == null || key.toLowerCase(Locale.ROOT).contains(part))
            .sorted(MemoryAdminTools::byCodePoints)
            .toList();
    ObjectNode answer =
        JSON.createObjectNode().put("total", keys.size()).put("offset", offset).put("limit", limit);
    ArrayNode owners = answer.putArray("owners");
    for (String key :
        keys.subList(Math.min(offset, keys.size()), Math.min(keys.size(), offset + limit))) {
      ObjectNode one = owners.addObject().put("ownerKey", key);
      if (counts) {
        Bucket bucket = Bucket.personal(call.agent(), OwnerKey.of(key));
        one.put("count", memory.items().list(List.of(bucket)).size());
      }
    }
    return answer;
  }

  /** Owner keys in Unicode code point order (their UTF-8 bytes), as every provider orders them. */
  private static int byCodePoints(String a, String b) {
    return java.util.Arrays.compareUnsigned(
        a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** The visible items within the filters, newest first. */
  private List<Item> matching(ToolCall call, OwnerKey owner, ToolArguments args) {
    Predicate<Item> filter = statusFilter(args).and(typeFilter(args)).and(textFilter(args));
    Instant since = args.optionalInstant("since");
    Instant until = args.optionalInstant("until");
    if (since != null) {
      filter = filter.and(item -> !item.createdAt().isBefore(since));
    }
    if (until != null) {
      filter = filter.and(item -> item.createdAt().isBefore(until));
    }
    List<Item> items =
        new ArrayList<>(
            memory.items().list(visible(call, owner, args)).stream().filter(filter).toList());
    items.sort(
        Comparator.comparing(Item::createdAt)
            .thenComparing(Item::updatedAt)
            .thenComparing(Item::id)
            .reversed());
    return items;
  }

  private static Predicate<Item> statusFilter(ToolArguments args) {
    List<String> statuses = lowerCase(args.stringList("status"));
    if (statuses.isEmpty() || statuses.equals(List.of("any"))) {
      return item -> true;
    }
    for (String status : statuses) {
      if (!STATUSES.contains(status) && !List.of("superseded", "pending").contains(status)) {
        throw ToolException.invalidArgument(
            "status",
            "status must be active, archived, suppressed, superseded or pending (one or a list),"
                + " or any; got '"
                + status
                + "'");
      }
    }
    // superseded and pending are statuses the builtin memories never have: they match none
    return item -> statuses.contains(item.status());
  }

  private static Predicate<Item> typeFilter(ToolArguments args) {
    List<String> types = lowerCase(args.stringList("type"));
    return item -> types.isEmpty() || types.contains(item.type());
  }

  private static Predicate<Item> textFilter(ToolArguments args) {
    String text = args.optionalText("text");
    if (text == null) {
      return item -> true;
    }
    String lower = text.toLowerCase(Locale.ROOT);
    List<String> words =
        List.of(lower.split("[^\\p{L}\\p{N}]+")).stream().filter(w -> !w.isEmpty()).toList();
    List<String> wanted = words.isEmpty() ? List.of(lower.strip()) : words;
    return item -> {
      String holds = item.text().toLowerCase(Locale.ROOT);
      return wanted.stream().allMatch(holds::contains);
    };
  }

  private static List<String> lowerCase(List<String> values) {
    return values.stream().map(v -> v.toLowerCase(Locale.ROOT)).toList();
  }

  /**
   * The buckets of a list or count: those the caller sees ({@link #buckets}), or with {@code
   * allOwners} (no owner on the call) the agent's whole memory: every owner's PERSONAL bucket and
   * the TEAM one.
   */
  private List<Bucket> visible(ToolCall call, OwnerKey owner, ToolArguments args) {
    String scope = args.optionalText("scope");
    if (!args.optionalBoolean("allOwners", false)) {
      return buckets(call, owner, scope);
    }
    if (owner != null) {
      throw ToolException.invalidArgument(
          "allOwners", "counts every owner; call it without an owner");
    }
    List<Bucket> all = new ArrayList<>();
    if (memory.settings().perOwner()) {
      memory.owners(call.agent()).forEach(o -> all.add(Bucket.personal(call.agent(), o)));
    }
    List<Bucket> team = buckets(call, null, scope);
    return scope == null || scope.equalsIgnoreCase("personal")
        ? java.util.stream.Stream.concat(all.stream(), team.stream()).toList()
        : team;
  }

  /**
   * The buckets whose memories the caller sees: the owner's PERSONAL one (with per-owner memory on)
   * and the agent's TEAM one, or those of {@code scope}.
   */
  private List<Bucket> buckets(ToolCall call, OwnerKey owner, String scope) {
    memory.ensureAgent(call.agent());
    List<Bucket> buckets = new ArrayList<>();
    if (owner != null && memory.settings().perOwner()) {
      buckets.add(Bucket.personal(call.agent(), owner));
    }
    buckets.add(Bucket.team(call.agent()));
    if (scope == null) {
      return buckets;
    }
    String name = scope.toLowerCase(Locale.ROOT);
    if (!List.of("personal", "team", "global").contains(name)) {
      throw ToolException.invalidArgument(
          "scope", "scope must be one of personal, team, global; got '" + scope + "'");
    }
    return buckets.stream().filter(b -> b.scopeName().equals(name)).toList();
  }

  private Item find(ToolCall call, OwnerKey owner, String id) {
    return memory
        .items()
        .find(buckets(call, owner, null), id)
        .orElseThrow(() -> notFound(call, id));
  }

  private static ToolException notFound(ToolCall call, String id) {
    return new ToolException(
        ToolException.Kind.NOT_FOUND,
        call.name() + ": no memory " + id + " that this caller may see");
  }

  private ObjectNode history(ToolCall call, OwnerKey owner, ToolArguments args) {
    String id = args.requiredText("id");
    MemoryItems.History history =
        memory
            .items()
            .history(buckets(call, owner, null), id)
            .orElseThrow(() -> notFound(call, id));
    ObjectNode answer = JSON.createObjectNode();
    answer.put("id", id);
    answer.put("forgotten", history.forgotten());
    ArrayNode events = answer.putArray("events");
    for (HistoryEvent event : history.events()) {
      ObjectNode node = events.addObject();
      node.put("at", time(event.at()));
      node.put("event", event.event());
      if (event.actor() != null) {
        node.put("actor", event.actor());
      }
      node.put("id", event.id());
      event.details().forEach(node::put);
    }
    return answer;
  }

  // ---------------------------------------------------------------- changes

  private ObjectNode status(ToolCall call, OwnerKey owner, ToolArguments args) {
    String id = args.requiredText("id");
    String status = args.requiredText("status").toLowerCase(Locale.ROOT);
    if (!STATUSES.contains(status)) {
      throw ToolException.invalidArgument(
          "status", "status must be active, archived or suppressed; got '" + status + "'");
    }
    Item item = writable(call, find(call, owner, id));
    MemoryItems.StatusChange change = memory.items().setStatus(item, status, call.actor());
    ObjectNode answer = JSON.createObjectNode();
    answer.put("id", change.item().id());
    answer.put("status", change.item().status());
    answer.put("previous", change.previous());
    answer.put("updatedAt", time(change.item().updatedAt()));
    return answer;
  }

  private ObjectNode edit(ToolCall call, OwnerKey owner, ToolArguments args) {
    String id = args.requiredText("id");
    String text = args.requiredText("text");
    String problem = ControlCharacters.problem("text", text);
    if (problem != null) {
      throw ToolException.invalidArgument("text", problem);
    }
    Instant expected;
    try {
      expected = Instant.parse(args.requiredText("updatedAt"));
    } catch (DateTimeParseException e) {
      throw ToolException.invalidArgument(
          "updatedAt", "updatedAt must be an ISO instant such as 2026-01-31T09:00:00.123Z");
    }
    Item item = writable(call, find(call, owner, id));
    MemoryItems.Edited edited = memory.items().edit(item, text, expected, call.actor());
    ObjectNode answer = item(edited.item());
    answer.put("changed", edited.changed());
    answer.put("previousId", id);
    return answer;
  }

  private ObjectNode delete(ToolCall call, OwnerKey owner, ToolArguments args) {
    String id = args.requiredText("id");
    Item item = writable(call, find(call, owner, id));
    for (String text : memory.items().forget(item, call.actor())) {
      reports.scrub(item.bucket(), text);
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("id", id);
    answer.put("deleted", true);
    return answer;
  }

  private static Item writable(ToolCall call, Item item) {
    call.requireWritable(item.bucket().scope());
    return item;
  }

  // ---------------------------------------------------------------- answers

  private static ObjectNode item(Item item) {
    ObjectNode node = JSON.createObjectNode();
    node.put("id", item.id());
    node.put("text", item.text());
    node.put("scope", item.bucket().scopeName());
    if (item.bucket().owner() != null) {
      node.put("owner", item.bucket().owner().value());
    }
    node.put("type", item.type());
    node.put("section", item.section());
    node.put("file", item.file().value());
    node.put("status", item.status());
    node.put("createdAt", time(item.createdAt()));
    node.put("updatedAt", time(item.updatedAt()));
    if (item.turn() != null) {
      node.put("turn", item.turn());
    }
    return node;
  }

  private static String time(Instant instant) {
    return instant.truncatedTo(ChronoUnit.MILLIS).toString();
  }
}
