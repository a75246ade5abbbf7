package dev.memstack.builtin.tools;

import dev.memstack.builtin.extraction.JobBucket;
import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import java.util.List;
import java.util.function.BiConsumer;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the tools that run a memory job by hand ({@link MemoryJobTools}, {@link LifecycleTools},
 * {@link ConsolidationTools}) share: who may start a run, and the parts of their answers for a run
 * that did not start and for one bucket of a run.
 */
final class JobRuns {

  private JobRuns() {}

  /**
   * Refuses a caller who may not change what the run writes: {@code owner}'s memory bucket, or
   * without an owner the team's (a right the host gives only to callers bound to no owner).
   */
  static void requireWritable(ToolCall call, MemoryFiles files, OwnerKey owner) {
    call.requireWritable(
        owner == null ? Scope.TEAM : files.ownerBucket(call.agent(), owner).scope());
  }

  /** Marks {@code answer} {@code skipped} (a run is already in progress), with the outcome. */
  static ObjectNode skipped(ObjectNode answer, String outcome) {
    answer.put("status", "skipped");
    answer.put("outcome", outcome);
    return answer;
  }

  /**
   * Adds the {@code buckets} of a run to {@code answer}, one object each: its scope, its {@code
   * ownerKey} when an owner's, status, reason, and what {@code details} adds for the job.
   */
  static <B extends JobBucket> void buckets(
      ObjectNode answer, List<B> runs, BiConsumer<ObjectNode, B> details) {
    ArrayNode buckets = answer.putArray("buckets");
    for (B run : runs) {
      ObjectNode item = buckets.addObject();
      item.put("scope", run.scope());
      if (run.owner() != null) {
        item.put("ownerKey", run.owner().value());
      }
      item.put("status", run.status());
      item.put("reason", run.reason());
      details.accept(item, run);
    }
  }
}
