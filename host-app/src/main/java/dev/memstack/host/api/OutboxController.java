package dev.memstack.host.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.outbox.Failures;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxStats;
import dev.memstack.outbox.ProviderPolicy;
import dev.memstack.outbox.TurnOutbox;
import io.swagger.v3.oas.annotations.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/outbox}: the turn delivery backlog of every provider (pending count, age of
 * the oldest pending record, turns delivered and failed attempts since start, the last error
 * without secrets, whether the provider is optional, its {@code maxBacklog} then, and the turns
 * dropped past it since start, the dead letters kept) and, for the journal outbox, the journal's
 * size on disk. Needs {@code admin}. With {@code type=postgres} the pending counts are those of
 * every host sharing the database, the deliveries this host's, and {@code shared} names this host,
 * the live hosts and which host holds each provider's delivery lanes.
 */
@RestController
public class OutboxController {

  private final TurnOutbox outbox;

  public OutboxController(TurnOutbox outbox) {
    this.outbox = outbox;
  }

  /** The answer: {@code type} is {@code journal}, {@code memory} or {@code postgres}. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record OutboxView(
      String type, List<BacklogView> providers, JournalView journal, SharedView shared) {}

  /**
   * The shared outbox ({@code type=postgres}).
   *
   * @param host this host's id
   * @param liveHosts hosts with a recent heartbeat
   * @param leases lane id ({@code provider#shard}) to the host holding it; lanes nobody holds are
   *     left out
   */
  public record SharedView(String host, int liveHosts, Map<String, String> leases) {}

  /** One provider's backlog. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record BacklogView(
      String id,
      int pending,
      Integer pendingTurns,
      Integer pendingErasures,
      long oldestAgeMs,
      String oldestAge,
      long delivered,
      Long erased,
      long failedAttempts,
      String lastError,
      Long redelivered,
      Boolean optional,
      Integer maxBacklog,
      Long droppedTurns,
      Integer deadLetters) {}

  /**
   * The journal's storage (on disk, or in the heap for {@code memory}); {@code accepted} counts
   * every record written since it was created (since start for {@code memory}).
   */
  public record JournalView(
      int segments, long bytes, long maxBytes, long accepted, boolean fsync) {}

  @Operation(summary = "The turn outbox: backlog per provider and the journal")
  @RequiresRole(Role.ADMIN)
  @GetMapping(path = "/api/v1/outbox", produces = MediaType.APPLICATION_JSON_VALUE)
  public OutboxView outbox() {
    List<BacklogView> views = new ArrayList<>();
    if (outbox instanceof OutboxEngine engine) {
      Map<String, Integer> deadLetters = engine.deadLetters().counts();
      for (OutboxEngine.Backlog backlog : engine.backlog()) {
        OutboxStats stats = backlog.stats();
        ProviderPolicy policy = engine.policy(backlog.id());
        views.add(
            withPolicy(
                view(
                    backlog.id(),
                    stats,
                    backlog.pendingTurns(),
                    backlog.pendingErasures(),
                    backlog.erased(),
                    backlog.redelivered()),
                policy,
                engine.droppedTurns(backlog.id()),
                deadLetters.getOrDefault(backlog.id(), 0)));
      }
      OutboxEngine.JournalStats disk = engine.journalStats();
      SharedView shared =
          engine
              .sharedState()
              .map(
                  state ->
                      new SharedView(
                          state.host(),
                          state.liveHosts(),
                          new java.util.TreeMap<>(state.holders())))
              .orElse(null);
      return new OutboxView(
          disk.type(),
          views,
          new JournalView(
              disk.segments(), disk.bytes(), disk.maxBytes(), disk.nextPosition(), disk.fsync()),
          shared);
    }
    for (Map.Entry<String, OutboxStats> entry : outbox.stats().entrySet()) {
      views.add(view(entry.getKey(), entry.getValue(), null, null, null, null));
    }
    return new OutboxView("memory", views, null, null);
  }

  private static BacklogView view(
      String id,
      OutboxStats stats,
      Integer turns,
      Integer erasures,
      Long erased,
      Long redelivered) {
    return new BacklogView(
        id,
        stats.pending(),
        turns,
        erasures,
        stats.oldestAge().toMillis(),
        stats.oldestAge().toString(),
        stats.delivered(),
        erased,
        stats.failedAttempts(),
        stats.lastError() == null ? null : Failures.redact(stats.lastError()),
        redelivered,
        null,
        null,
        null,
        null);
  }

  /** The view with the provider's backlog policy and the turns dropped past its bound. */
  private static BacklogView withPolicy(
      BacklogView view, ProviderPolicy policy, long dropped, int deadLetters) {
    return new BacklogView(
        view.id(),
        view.pending(),
        view.pendingTurns(),
        view.pendingErasures(),
        view.oldestAgeMs(),
        view.oldestAge(),
        view.delivered(),
        view.erased(),
        view.failedAttempts(),
        view.lastError(),
        view.redelivered(),
        policy.optional(),
        policy.optional() ? policy.maxBacklog() : null,
        dropped,
        deadLetters);
  }
}
