package dev.memstack.builtin.tools;

import dev.memstack.builtin.extraction.DreamReports;
import dev.memstack.builtin.extraction.Dreaming;
import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ToolArguments;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The lifecycle tools of the builtin provider ({@link dev.memstack.spi.Capability#LIFECYCLE}): the
 * dreaming reports ({@code dream_reports}), the owner's morning card ({@code dream_morning_card}:
 * the items of one day's reports, yesterday by default), the owner's answer to one item ({@code
 * resolve_card_item}: confirm, edit or forget) and a dream on one topic ({@code
 * run_focused_dream}). The reads and the answers need no chat model; the focused dream does, and
 * fails with CONFLICT naming {@code memstack.models.chat} without one.
 *
 * @param dreaming runs focused dreams and keeps the reports
 * @param files the memory files, for the owner's bucket
 * @param model the chat model a focused dream needs
 */
public record LifecycleTools(Dreaming dreaming, MemoryFiles files, LanguageModel model) {

  /** The message of a call that needs a chat model, made without one. */
  public static final String NO_MODEL = "no chat model configured (set memstack.models.chat)";

  private static final Set<String> NAMES =
      Set.of(
          StandardTools.DREAM_REPORTS,
          StandardTools.DREAM_MORNING_CARD,
          StandardTools.RESOLVE_CARD_ITEM,
          StandardTools.RUN_FOCUSED_DREAM);

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Whether {@code name} is one of these tools. */
  public boolean has(String name) {
    return NAMES.contains(name);
  }

  /** The tool specs. */
  public List<ToolSpec> specs() {
    String owner = CallerArguments.OWNER_KEY_SCHEMA;
    return List.of(
        new ToolSpec(
            StandardTools.DREAM_REPORTS,
            "The structured reports of dreaming runs, newest first (the owner's bucket when"
                + " ownerKey is given, else the team's): what each read, the patterns found, what"
                + " changed in which file with the earlier text, and its items.",
            "{\"type\": \"object\", \"properties\": {"
                + owner
                + ", \"from\": {\"type\": \"string\", \"description\": \"ISO date\"},"
                + " \"to\": {\"type\": \"string\", \"description\": \"ISO date\"},"
                + " \"zone\": {\"type\": \"string\"}}, \"additionalProperties\": false}",
            ToolSpec.Effect.READ),
        new ToolSpec(
            StandardTools.DREAM_MORNING_CARD,
            "The owner's morning card: what dreaming concluded on one day (yesterday by default),"
                + " item by item, each pending, confirmed or edited.",
            "{\"type\": \"object\", \"properties\": {"
                + owner
                + ", \"date\": {\"type\": \"string\", \"description\": \"ISO date\"},"
                + " \"zone\": {\"type\": \"string\", \"description\": \"time zone, UTC by"
                + " default\"}}, \"required\": [\"ownerKey\"], \"additionalProperties\": false}",
            ToolSpec.Effect.READ),
        new ToolSpec(
            StandardTools.RESOLVE_CARD_ITEM,
            "Answer one item of the morning card: confirm it, edit it (text: the corrected line,"
                + " written to MEMORY.md) or forget it (removed from MEMORY.md and its text from"
                + " every report, archive and DREAMS.md).",
            "{\"type\": \"object\", \"properties\": {"
                + owner
                + ", \"reportId\": {\"type\": \"string\"}, \"index\": {\"type\": \"integer\","
                + " \"minimum\": 0}, \"action\": {\"type\": \"string\", \"enum\": [\"confirm\","
                + " \"edit\", \"forget\"]}, \"text\": {\"type\": \"string\"}}, \"required\":"
                + " [\"ownerKey\", \"reportId\", \"index\", \"action\"], \"additionalProperties\":"
                + " false}",
            ToolSpec.Effect.WRITE),
        new ToolSpec(
            StandardTools.RUN_FOCUSED_DREAM,
            "Dream now on one topic only (the owner's bucket when ownerKey is given, else the"
                + " team's): the model changes only what concerns the topic. CONFLICT without a"
                + " chat model.",
            "{\"type\": \"object\", \"properties\": {"
                + owner
                + ", \"topic\": {\"type\": \"string\"}}, \"required\": [\"topic\"],"
                + " \"additionalProperties\": false}",
            ToolSpec.Effect.WRITE));
  }

  /** Runs one of the tools. */
  public String call(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call);
    OwnerKey owner = CallerArguments.owner(call, args);
    ObjectNode answer =
        switch (call.name()) {
          case StandardTools.DREAM_REPORTS -> {
            args.requireOnly(Set.of("ownerKey", "from", "to", "zone"));
            yield reports(call.agent(), owner, args);
          }
          case StandardTools.DREAM_MORNING_CARD -> {
            args.requireOnly(Set.of("ownerKey", "date", "zone"));
            yield card(call.agent(), requireOwner(owner), args);
          }
          case StandardTools.RESOLVE_CARD_ITEM -> {
            args.requireOnly(Set.of("ownerKey", "reportId", "index", "action", "text"));
            yield resolve(call, requireOwner(owner), args);
          }
          case StandardTools.RUN_FOCUSED_DREAM -> {
            args.requireOnly(Set.of("ownerKey", "topic"));
            yield focused(call, owner, args);
          }
          default ->
              throw new ToolException(ToolException.Kind.NOT_FOUND, "no tool " + call.name());
        };
    return JSON.writeValueAsString(answer);
  }

  private static OwnerKey requireOwner(OwnerKey owner) {
    if (owner == null) {
      throw ToolException.invalidArgument("ownerKey", "ownerKey is required");
    }
    return owner;
  }

  private ObjectNode reports(AgentId agent, OwnerKey owner, ToolArguments args) {
    Bucket bucket = owner == null ? Bucket.team(agent) : files.ownerBucket(agent, owner);
    ZoneId zone = zone(args);
    LocalDate from = date(args, "from", LocalDate.MIN);
    LocalDate to = date(args, "to", LocalDate.MAX);
    ObjectNode answer = CallerArguments.answer(JSON, agent, owner);
    ArrayNode out = answer.putArray("reports");
    for (DreamReports.Report report : dreaming.reports().between(bucket, from, to, zone)) {
      ObjectNode node = JSON.valueToTree(report);
      node.put("date", report.day(zone).toString());
      out.add(node);
    }
    return answer;
  }

  private ObjectNode card(AgentId agent, OwnerKey owner, ToolArguments args) {
    Bucket bucket = files.ownerBucket(agent, owner);
    ZoneId zone = zone(args);
    LocalDate today = java.time.Instant.now(dreamingClock()).atZone(zone).toLocalDate();
    LocalDate day = date(args, "date", today.minusDays(1));
    ObjectNode answer = CallerArguments.answer(JSON, agent, owner);
    answer.put("date", day.toString());
    answer.put("zone", zone.getId());
    ArrayNode items = answer.putArray("items");
    for (DreamReports.Report report : dreaming.reports().between(bucket, day, day, zone)) {
      for (DreamReports.Item item : report.items()) {
        if (item.status().equals("forgotten")) {
          continue;
        }
        ObjectNode node = items.addObject();
        node.put("reportId", report.id());
        node.put("index", item.index());
        node.put("text", item.text());
        node.put("kind", item.kind());
        node.put("status", item.status());
        node.put("file", "MEMORY.md");
        node.put("time", report.time());
      }
    }
    return answer;
  }

  private java.time.Clock dreamingClock() {
    return dreaming.clock();
  }

  private ObjectNode resolve(ToolCall call, OwnerKey owner, ToolArguments args) {
    Bucket bucket = files.ownerBucket(call.agent(), owner);
    call.requireWritable(bucket.scope() == Scope.PERSONAL ? Scope.PERSONAL : Scope.TEAM);
    String reportId = args.requiredText("reportId");
    int index = args.optionalInt("index", 0, 100_000, -1);
    if (index < 0) {
      throw ToolException.invalidArgument("index", "index is required");
    }
    String action = args.requiredText("action");
    String text = args.optionalText("text");
    if (!Set.of("confirm", "edit", "forget").contains(action)) {
      throw ToolException.invalidArgument("action", "action must be confirm, edit or forget");
    }
    if (action.equals("edit") && (text == null || text.isBlank())) {
      throw ToolException.invalidArgument("text", "an edit needs the corrected text");
    }
    if (text != null && !action.equals("edit")) {
      throw ToolException.invalidArgument("text", "text goes with the action edit only");
    }
    Optional<DreamReports.Resolved> resolved;
    try {
      resolved = dreaming.reports().resolve(bucket, reportId, index, action, text);
    } catch (IllegalStateException e) {
      throw new ToolException(ToolException.Kind.CONFLICT, e.getMessage());
    }
    if (resolved.isEmpty()) {
      throw new ToolException(
          ToolException.Kind.NOT_FOUND,
          "no item " + index + " of report " + reportId + " for " + owner);
    }
    ObjectNode answer = CallerArguments.answer(JSON, call.agent(), owner);
    answer.put("reportId", reportId);
    answer.put("action", action);
    answer.set("item", JSON.valueToTree(resolved.get().item()));
    return answer;
  }

  private ObjectNode focused(ToolCall call, OwnerKey owner, ToolArguments args) {
    String topic = args.requiredText("topic").strip();
    if (topic.length() > 200) {
      throw ToolException.invalidArgument("topic", "a topic is at most 200 characters");
    }
    if (!model.available()) {
      throw new ToolException(ToolException.Kind.CONFLICT, NO_MODEL);
    }
    AgentId agent = call.agent();
    JobRuns.requireWritable(call, files, owner);
    Optional<Dreaming.Run> run = dreaming.focused(agent, owner, topic);
    ObjectNode answer = CallerArguments.answer(JSON, agent, owner);
    answer.put("topic", topic);
    if (run.isEmpty()) {
      return JobRuns.skipped(
          answer, "a dreaming run of agent " + agent + " is already in progress");
    }
    answer.put("status", "completed");
    answer.put("time", run.get().time().toString());
    answer.put("outcome", run.get().outcome());
    JobRuns.buckets(
        answer,
        run.get().buckets(),
        (item, bucket) ->
            item.put("notesRead", bucket.notesRead()).put("memoryChanged", bucket.memoryChanged()));
    return answer;
  }

  private static ZoneId zone(ToolArguments args) {
    String zone = args.optionalText("zone");
    if (zone == null) {
      return ZoneOffset.UTC;
    }
    try {
      return ZoneId.of(zone);
    } catch (DateTimeException e) {
      throw ToolException.invalidArgument("zone", "unknown time zone: " + zone);
    }
  }

  private static LocalDate date(ToolArguments args, String name, LocalDate fallback) {
    String value = args.optionalText(name);
    if (value == null) {
      return fallback;
    }
    try {
      return LocalDate.parse(value);
    } catch (DateTimeParseException e) {
      throw ToolException.invalidArgument(name, name + " must be an ISO date such as 2026-04-02");
    }
  }
}
