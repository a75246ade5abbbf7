package dev.memstack.builtin.tools;

import dev.memstack.builtin.extraction.Dreaming;
import dev.memstack.builtin.extraction.MemoryExtraction;
import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ToolArguments;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The memory-job tools the host's {@code /api/v1/memory/...} routes call: {@code
 * summarize_conversation} {@code {conversationId, ownerKey}} runs post-turn extraction now, {@code
 * run_emergence} {@code {ownerKey?}} runs dreaming now, {@code dreaming_status} {@code {ownerKey?}}
 * answers the last run, its outcome, the next run and the newest DREAMS.md entry. Without a chat
 * model every one fails with {@link ToolException.Kind#CONFLICT} "no chat model configured"; a
 * failing or silent model is {@code UNAVAILABLE}.
 *
 * @param extraction the post-turn extraction that summarize runs
 * @param dreaming the dreaming that emergence runs and status reports
 * @param files the memory files, for the newest DREAMS.md entry
 * @param model the chat model both jobs need
 */
public record MemoryJobTools(
    MemoryExtraction extraction, Dreaming dreaming, MemoryFiles files, LanguageModel model) {

  public static final String SUMMARIZE = StandardTools.SUMMARIZE_CONVERSATION;
  public static final String EMERGENCE = StandardTools.RUN_EMERGENCE;
  public static final String STATUS = StandardTools.DREAMING_STATUS;

  /** The message of every call made without a chat model. */
  public static final String NO_MODEL = "no chat model configured";

  private static final Set<String> NAMES = Set.of(SUMMARIZE, EMERGENCE, STATUS);

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Whether {@code name} is one of these tools. */
  public boolean has(String name) {
    return NAMES.contains(name);
  }

  /** The tool specs. */
  public List<ToolSpec> specs() {
    String owner = CallerArguments.OWNER_KEY_SCHEMA;
    String agent = CallerArguments.AGENT_ID_SCHEMA;
    return List.of(
        new ToolSpec(
            SUMMARIZE,
            "Extract memory from one of the owner's conversations now: the model reads the recent"
                + " messages and the owner's PROFILE.md, MEMORY.md and daily note, and updates"
                + " them. Answers {agentId, ownerKey, conversationId, status (updated, unchanged,"
                + " skipped, invalid_answer), reason, messages, written, truncated}. CONFLICT"
                + " without a chat model.",
            "{\"type\": \"object\", \"properties\": {"
                + agent
                + ", "
                + owner
                + ", \"conversationId\": {\"type\": \"string\"}}, \"required\":"
                + " [\"conversationId\", \"ownerKey\"], \"additionalProperties\": false}",
            ToolSpec.Effect.WRITE),
        new ToolSpec(
            EMERGENCE,
            "Dream now: fold the recent daily notes into MEMORY.md (the owner's personal bucket"
                + " when ownerKey is given, else the team and the owners with recent notes) and"
                + " journal it in DREAMS.md. Answers {agentId, ownerKey, status, time, trigger,"
                + " outcome, buckets}. CONFLICT without a chat model.",
            "{\"type\": \"object\", \"properties\": {"
                + agent
                + ", "
                + owner
                + "}, \"additionalProperties\": false}",
            ToolSpec.Effect.DESTRUCTIVE),
        new ToolSpec(
            STATUS,
            "The dreaming schedule: last run, its outcome, next run and the newest DREAMS.md"
                + " entry (the owner's when ownerKey is given, else the team's). CONFLICT without"
                + " a chat model.",
            "{\"type\": \"object\", \"properties\": {"
                + agent
                + ", "
                + owner
                + "}, \"additionalProperties\": false}",
            ToolSpec.Effect.READ));
  }

  /**
   * Runs one of the tools.
   *
   * @throws ToolException CONFLICT without a chat model, INVALID_ARGUMENT for a bad argument
   */
  public String call(ToolCall call) {
    ToolArguments args =
        ToolArguments.parse(call)
            .requireOnly(
                call.name().equals(SUMMARIZE)
                    ? Set.of("agentId", "ownerKey", "conversationId")
                    : Set.of("agentId", "ownerKey"));
    CallerArguments.checkAgent(call, args);
    OwnerKey owner = CallerArguments.owner(call, args);
    if (!model.available()) {
      throw new ToolException(ToolException.Kind.CONFLICT, NO_MODEL);
    }
    ObjectNode answer =
        switch (call.name()) {
          case SUMMARIZE -> summarize(call, owner, args);
          case EMERGENCE -> emergence(call, owner);
          case STATUS -> status(call.agent(), owner);
          default ->
              throw new ToolException(ToolException.Kind.NOT_FOUND, "no tool " + call.name());
        };
    try {
      return JSON.writeValueAsString(answer);
    } catch (JacksonException e) {
      throw new IllegalStateException("cannot write a tool answer", e);
    }
  }

  private ObjectNode summarize(ToolCall call, OwnerKey owner, ToolArguments args) {
    AgentId agent = call.agent();
    if (owner == null) {
      throw ToolException.invalidArgument("ownerKey", "ownerKey is required");
    }
    call.requireWritable(files.ownerBucket(agent, owner).scope());
    String conversationId = args.requiredString("conversationId");
    if (conversationId.isEmpty()
        || conversationId.length() > 128
        || conversationId.indexOf('/') >= 0
        || conversationId.indexOf('\\') >= 0
        || conversationId.chars().anyMatch(Character::isISOControl)) {
      throw ToolException.invalidArgument(
          "conversationId",
          "conversationId must be 1-128 characters without slashes or control characters");
    }
    MemoryExtraction.Outcome outcome = extraction.run(agent, owner, conversationId, true);
    switch (outcome.status()) {
      case NO_MODEL -> throw new ToolException(ToolException.Kind.CONFLICT, NO_MODEL);
      case FAILED -> throw new ToolException(ToolException.Kind.UNAVAILABLE, outcome.reason());
      default -> {}
    }
    ObjectNode answer = answer(agent, owner);
    answer.put("conversationId", conversationId);
    answer.put("status", outcome.status().wireName());
    answer.put("reason", outcome.reason());
    answer.put("messages", outcome.messages());
    ArrayNode written = answer.putArray("written");
    outcome.written().forEach(written::add);
    ArrayNode truncated = answer.putArray("truncated");
    outcome.truncated().forEach(truncated::add);
    return answer;
  }

  /**
   * Dreams for one owner (their memory bucket must be writable by the caller) or, without an owner,
   * for the team and every owner with recent notes: that needs the right to change team memory,
   * which the host gives only to callers bound to no owner.
   */
  private ObjectNode emergence(ToolCall call, OwnerKey owner) {
    AgentId agent = call.agent();
    JobRuns.requireWritable(call, files, owner);
    Optional<Dreaming.Run> run = dreaming.run(agent, owner, "manual");
    ObjectNode answer = answer(agent, owner);
    if (run.isEmpty()) {
      return JobRuns.skipped(
          answer, "a dreaming run of agent " + agent + " is already in progress");
    }
    answer.put("status", "completed");
    putRun(answer, run.get());
    return answer;
  }

  private ObjectNode status(AgentId agent, OwnerKey owner) {
    ObjectNode answer = answer(agent, owner);
    answer.put("enabled", dreaming.enabled());
    answer.put("schedule", dreaming.cron());
    answer.put("model", model.modelId());
    Optional<Dreaming.Run> last = dreaming.lastRun(agent);
    if (last.isPresent()) {
      putRun(answer.putObject("lastRun"), last.get());
    } else {
      answer.putNull("lastRun");
    }
    Optional<Instant> next = dreaming.nextRun(agent);
    if (next.isPresent()) {
      answer.put("nextRun", time(next.get()));
    } else {
      answer.putNull("nextRun");
    }
    Bucket bucket = owner == null ? Bucket.team(agent) : files.ownerBucket(agent, owner);
    answer.put("journal", bucket.scopeName());
    String newest = dreaming.newestEntry(bucket);
    if (newest == null) {
      answer.putNull("newestEntry");
    } else {
      answer.put("newestEntry", newest);
    }
    return answer;
  }

  private void putRun(ObjectNode node, Dreaming.Run run) {
    node.put("time", time(run.time()));
    node.put("trigger", run.trigger());
    node.put("outcome", run.outcome());
    JobRuns.buckets(
        node,
        run.buckets(),
        (item, bucket) ->
            item.put("notesRead", bucket.notesRead())
                .put("memoryChanged", bucket.memoryChanged())
                .put("memoryTruncated", bucket.memoryTruncated()));
  }

  private ObjectNode answer(AgentId agent, OwnerKey owner) {
    return CallerArguments.answer(JSON, agent, owner);
  }

  private static String time(Instant instant) {
    return instant.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
