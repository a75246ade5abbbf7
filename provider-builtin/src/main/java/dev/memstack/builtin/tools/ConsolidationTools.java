package dev.memstack.builtin.tools;

import dev.memstack.builtin.extraction.StructuredConsolidation;
import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ConsolidationSettings;
import dev.memstack.support.ToolArguments;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The structured consolidation tool: {@code run_structured_consolidation} {@code {ownerKey?}}
 * consolidates one owner's bucket now (their bucket must be writable by the caller) or, without an
 * owner, the team's and up to {@code structured-consolidation-max-owners-per-run} owners' (which
 * needs the right to change team memory). Answers {@code {agentId, ownerKey, status, trigger,
 * ownersConsolidated, updated, entriesBefore, entriesAfter, buckets}}. Without a chat model it
 * fails with {@link ToolException.Kind#CONFLICT} {@value #NO_MODEL}, whatever there is to merge.
 *
 * @param consolidation the job it runs
 * @param files the memory files, for the owner's bucket
 * @param model the chat model the job needs
 */
public record ConsolidationTools(
    StructuredConsolidation consolidation, MemoryFiles files, LanguageModel model) {

  public static final String CONSOLIDATE = StandardTools.RUN_STRUCTURED_CONSOLIDATION;

  /** The message of a call made without a chat model. */
  public static final String NO_MODEL = ConsolidationSettings.NO_MODEL;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** Whether {@code name} is this tool. */
  public boolean has(String name) {
    return CONSOLIDATE.equals(name);
  }

  /** The tool spec. */
  public List<ToolSpec> specs() {
    return List.of(
        new ToolSpec(
            CONSOLIDATE,
            "Merge near-duplicate or outdated entries of PROFILE.md and MEMORY.md now (the owner's"
                + " personal bucket when ownerKey is given, else the team's and up to the per-run"
                + " maximum of owners). Never writes more entries than it read. Answers {agentId,"
                + " ownerKey, status, ownersConsolidated, updated, entriesBefore, entriesAfter,"
                + " buckets}. CONFLICT without a chat model.",
            "{\"type\": \"object\", \"properties\": {"
                + CallerArguments.AGENT_ID_SCHEMA
                + ", "
                + CallerArguments.OWNER_KEY_SCHEMA
                + "}, \"additionalProperties\": false}",
            ToolSpec.Effect.WRITE));
  }

  /**
   * Runs the tool.
   *
   * @throws ToolException CONFLICT without a chat model, INVALID_ARGUMENT for a bad argument
   */
  public String call(ToolCall call) {
    if (!has(call.name())) {
      throw new ToolException(ToolException.Kind.NOT_FOUND, "no tool " + call.name());
    }
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("agentId", "ownerKey"));
    CallerArguments.checkAgent(call, args);
    OwnerKey owner = CallerArguments.owner(call, args);
    if (!model.available()) {
      throw new ToolException(ToolException.Kind.CONFLICT, NO_MODEL);
    }
    AgentId agent = call.agent();
    JobRuns.requireWritable(call, files, owner);
    Optional<StructuredConsolidation.Run> run = consolidation.run(agent, owner, "manual");
    ObjectNode answer = CallerArguments.answer(JSON, agent, owner);
    if (run.isEmpty()) {
      JobRuns.skipped(answer, "a structured consolidation of agent " + agent + " is in progress");
      put(answer, 0, 0, 0, 0);
      answer.putArray("buckets");
    } else {
      answer.put("status", "completed");
      put(answer, run.get());
    }
    try {
      return JSON.writeValueAsString(answer);
    } catch (JacksonException e) {
      throw new IllegalStateException("cannot write a tool answer", e);
    }
  }

  private static void put(ObjectNode answer, int owners, int updated, int before, int after) {
    answer.put("ownersConsolidated", owners);
    answer.put("updated", updated);
    answer.put("entriesBefore", before);
    answer.put("entriesAfter", after);
  }

  private static void put(ObjectNode answer, StructuredConsolidation.Run run) {
    answer.put("trigger", run.trigger());
    put(answer, run.ownersConsolidated(), run.updated(), run.entriesBefore(), run.entriesAfter());
    JobRuns.buckets(
        answer,
        run.buckets(),
        (item, bucket) -> {
          item.put("entriesBefore", bucket.entriesBefore());
          item.put("entriesAfter", bucket.entriesAfter());
          ArrayNode merged = item.putArray("merged");
          bucket.merged().forEach(merged::add);
        });
  }
}
