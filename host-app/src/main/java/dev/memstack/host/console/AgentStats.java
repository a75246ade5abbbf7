package dev.memstack.host.console;

import dev.memstack.host.api.CapabilityTools;
import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.stack.TurnActivity;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxStats;
import dev.memstack.outbox.TurnOutbox;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The numbers behind an agent's or an owner's statistics, each read where it lives: memory counts
 * from {@code count_memories} of every running provider that claims {@link Capability#MEMORY_ADMIN}
 * (one call per provider: it answers the total, by type and by status at once), an owner's recent
 * turns from the conversation log, the outbox's backlog from the outbox. An agent's counts ask for
 * {@code allOwners} (every owner's memories and the shared ones), an owner's for the owner's
 * personal memories, as the owner list counts them. Tool calls run as the current caller, so its
 * rights apply. Thread-safe.
 *
 * @param providers finds the providers that claim the capability and calls their tools
 * @param turnOutbox the host's outbox
 * @param conversations the conversation log
 * @param activity the turns this host accepted
 * @param access the current caller
 * @param json makes the tool arguments
 */
public record AgentStats(
    CapabilityTools providers,
    TurnOutbox turnOutbox,
    ConversationLog conversations,
    TurnActivity activity,
    AccessPolicy access,
    JsonMapper json) {

  /**
   * Memory counts.
   *
   * @param byProvider total per provider instance
   * @param byType summed over the providers, by type
   * @param byStatus summed over the providers, by lower-case status
   */
  public record Counts(
      Map<String, Long> byProvider, Map<String, Long> byType, Map<String, Long> byStatus) {

    /** The total over every provider. */
    public long total() {
      return byProvider.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /**
   * The outbox now.
   *
   * @param pending turns and erasures waiting, every provider's
   * @param deadLetters dead letters kept, every provider's
   * @param lagSeconds how long the oldest waiting record of any provider has waited
   * @param delivered deliveries since this host started, every provider's
   */
  public record OutboxNumbers(long pending, long deadLetters, double lagSeconds, long delivered) {}

  /**
   * The memory counts of {@code agent}: every owner's and the shared ones when {@code owner} is
   * {@code null}, else the owner's personal memories.
   */
  public Counts counts(AgentId agent, OwnerKey owner) {
    Map<String, Long> byProvider = new TreeMap<>();
    Map<String, Long> byType = new TreeMap<>();
    Map<String, Long> byStatus = new TreeMap<>();
    for (StackMember member : providers.providers(Capability.MEMORY_ADMIN)) {
      JsonNode answer = count(member, agent, owner, null);
      byProvider.put(member.id(), answer.path("total").asLong(0));
      add(byType, answer.get("byType"));
      add(byStatus, answer.get("byStatus"));
    }
    return new Counts(byProvider, byType, byStatus);
  }

  /** How many of the memories {@link #counts} counts were created at or after {@code from}. */
  public long createdSince(AgentId agent, OwnerKey owner, Instant from) {
    long total = 0;
    for (StackMember member : providers.providers(Capability.MEMORY_ADMIN)) {
      total += count(member, agent, owner, from).path("total").asLong(0);
    }
    return total;
  }

  /**
   * The owner's turns with the agent at or after {@code from}, as the conversation log keeps them
   * (shared by every host in shared mode).
   */
  public long ownerTurnsSince(AgentId agent, OwnerKey owner, Instant from) {
    return conversations.turnsSince(agent, owner, from);
  }

  /** The outbox's backlog, dead letters and deliveries now. */
  public OutboxNumbers outbox() {
    long pending = 0;
    long delivered = 0;
    long oldestMillis = 0;
    for (OutboxStats stats : turnOutbox.stats().values()) {
      pending += stats.pending();
      delivered += stats.delivered();
      oldestMillis = Math.max(oldestMillis, stats.oldestAge().toMillis());
    }
    long deadLetters =
        turnOutbox instanceof OutboxEngine engine
            ? engine.deadLetters().counts().values().stream().mapToLong(Integer::longValue).sum()
            : 0;
    return new OutboxNumbers(pending, deadLetters, oldestMillis / 1000.0, delivered);
  }

  private JsonNode count(StackMember member, AgentId agent, OwnerKey owner, Instant since) {
    ObjectNode arguments = json.createObjectNode();
    if (owner == null) {
      arguments.put("allOwners", true);
    } else {
      arguments.put("scope", "personal");
    }
    if (since != null) {
      arguments.put("since", since.toString());
    }
    JsonNode answer =
        providers.callStandard(
            Capability.MEMORY_ADMIN,
            member.id(),
            StandardTools.COUNT_MEMORIES,
            agent,
            owner,
            arguments);
    return answer == null ? json.createObjectNode() : answer;
  }

  private static void add(Map<String, Long> into, JsonNode counts) {
    if (counts != null && counts.isObject()) {
      counts
          .properties()
          .forEach(
              e -> {
                long n = e.getValue().asLong(0);
                if (n > 0) {
                  into.merge(e.getKey(), n, Long::sum);
                }
              });
    }
  }
}
