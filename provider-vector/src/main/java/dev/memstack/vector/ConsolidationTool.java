package dev.memstack.vector;

import dev.memstack.spi.Scope;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ConsolidationSettings;
import dev.memstack.support.ToolArguments;
import dev.memstack.vector.consolidation.TypedConsolidation;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The standard tool {@code run_structured_consolidation} ({@link StandardTools}) over the typed
 * memories ({@link TypedConsolidation}), served without claiming {@link
 * dev.memstack.spi.Capability#LIFECYCLE} (whose other tools are about dreaming, which this provider
 * does not do): the host's consolidation route calls it on every provider that lists it. With an
 * owner on the call it consolidates that owner's memories (their personal memory must be writable
 * by the caller); without one, up to {@code structured-consolidation-max-owners-per-run} owners
 * (which needs the right to change team memory, a right the host gives only to callers bound to no
 * owner). Answers {@code {agentId, ownerKey, status, trigger, ownersConsolidated, updated,
 * entriesBefore, entriesAfter, buckets:[{scope, ownerKey, type, status, reason, entriesBefore,
 * entriesAfter, merged}]}}, {@code status} {@code skipped} when a run of the agent is in progress.
 * Without a chat model it fails with {@code CONFLICT} {@value ConsolidationSettings#NO_MODEL},
 * whatever there is to merge.
 *
 * @param consolidation the job it runs
 * @param json writes the answers
 */
record ConsolidationTool(TypedConsolidation consolidation, JsonMapper json) {

  static final List<ToolSpec> SPECS =
      List.of(
          new ToolSpec(
              StandardTools.RUN_STRUCTURED_CONSOLIDATION,
              "Merge near-duplicate or outdated typed memories (not raw turns) now, type by type:"
                  + " the owner's, or up to the per-run maximum of owners. Never writes more than"
                  + " it read; the replaced ones are archived. CONFLICT without a chat model.",
              "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
              ToolSpec.Effect.WRITE));

  ObjectNode call(ToolCall call) {
    ToolArguments.parse(call).requireOnly(Set.of());
    if (!consolidation.available()) {
      throw new ToolException(ToolException.Kind.CONFLICT, ConsolidationSettings.NO_MODEL);
    }
    call.requireWritable(call.owner() == null ? Scope.TEAM : Scope.PERSONAL);
    Optional<TypedConsolidation.Run> ran = consolidation.run(call.agent(), call.owner(), "manual");
    ObjectNode answer = json.createObjectNode().put("agentId", call.agent().value());
    if (call.owner() != null) {
      answer.put("ownerKey", call.owner().value());
    }
    TypedConsolidation.Run run = ran.orElse(new TypedConsolidation.Run("manual", 0, List.of()));
    answer.put("status", ran.isPresent() ? "completed" : "skipped");
    if (ran.isEmpty()) {
      answer.put("outcome", "a structured consolidation of agent " + call.agent() + " is running");
    }
    answer.put("trigger", run.trigger()).put("ownersConsolidated", run.ownersConsolidated());
    answer.put("updated", run.updated()).put("entriesBefore", run.entriesBefore());
    answer.put("entriesAfter", run.entriesAfter());
    ArrayNode buckets = answer.putArray("buckets");
    for (TypedConsolidation.Group group : run.groups()) {
      ObjectNode item = buckets.addObject().put("scope", "personal");
      item.put("ownerKey", group.owner().value()).put("type", group.type());
      item.put("status", group.status()).put("reason", group.reason());
      item.put("entriesBefore", group.entriesBefore()).put("entriesAfter", group.entriesAfter());
      group.merged().forEach(item.putArray("merged")::add);
    }
    return answer;
  }
}
