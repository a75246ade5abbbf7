package dev.memstack.host.outbox;

import dev.memstack.host.provider.StackMembers;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxStats;
import dev.memstack.outbox.ProviderPolicy;
import dev.memstack.outbox.TurnOutbox;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The {@code outbox} component of {@code /actuator/health}: {@code UP} while every provider keeps
 * up, {@code DEGRADED} when a turn or erasure has waited longer than {@code
 * memstack.outbox.degraded-lag} for a running provider (or a turn for any provider), and {@code
 * DOWN} (the whole host then answers 503) while the outbox cannot take any turn at all ({@link
 * OutboxEngine#refusal()}: closed, the journal cannot be written, or it is full). Erasures waiting
 * for a provider that is not running do not count: they run when it returns. Details list each
 * provider's pending count and oldest age, whether it is optional (its {@code maxBacklog} then) and
 * how many of its turns were dropped past that bound ({@code droppedTurns}, since start, this
 * host's drops), the journal's size, and why turns are refused; with {@code type=postgres} the
 * counts are every host's, and {@code shared} gives this host, the live hosts and how many delivery
 * lanes each host holds.
 */
public final class OutboxHealthIndicator implements HealthIndicator {

  /** Some provider lags behind; the host still accepts turns. */
  public static final Status DEGRADED = new Status("DEGRADED");

  private final TurnOutbox outbox;
  private final StackMembers members;
  private final Duration degradedLag;

  public OutboxHealthIndicator(TurnOutbox outbox, StackMembers members, Duration degradedLag) {
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.members = Objects.requireNonNull(members, "members");
    this.degradedLag = Objects.requireNonNull(degradedLag, "degradedLag");
  }

  @Override
  public Health health() {
    boolean lagging = false;
    Map<String, Object> providers = new LinkedHashMap<>();
    if (outbox instanceof OutboxEngine engine) {
      for (OutboxEngine.Backlog backlog : engine.backlog()) {
        boolean counts = backlog.pendingTurns() > 0 || members.find(backlog.id()).isPresent();
        boolean late = counts && backlog.stats().oldestAge().compareTo(degradedLag) > 0;
        lagging |= late;
        Map<String, Object> details = details(backlog.stats(), late);
        ProviderPolicy policy = engine.policy(backlog.id());
        details.put("optional", policy.optional());
        if (policy.optional()) {
          details.put("maxBacklog", policy.maxBacklog());
        }
        details.put("droppedTurns", engine.droppedTurns(backlog.id()));
        providers.put(backlog.id(), details);
      }
    } else {
      for (Map.Entry<String, OutboxStats> entry : outbox.stats().entrySet()) {
        boolean late = entry.getValue().oldestAge().compareTo(degradedLag) > 0;
        lagging |= late;
        providers.put(entry.getKey(), details(entry.getValue(), late));
      }
    }
    Optional<String> refusal =
        outbox instanceof OutboxEngine engine ? engine.refusal() : Optional.empty();
    Health.Builder health =
        refusal.isPresent()
            ? Health.down().withDetail("refusing", refusal.get())
            : lagging ? Health.status(DEGRADED) : Health.up();
    health.withDetail("degradedLag", degradedLag.toString()).withDetail("providers", providers);
    if (outbox instanceof OutboxEngine engine) {
      OutboxEngine.JournalStats stats = engine.journalStats();
      health.withDetail(
          "journal",
          Map.of(
              "segments", stats.segments(),
              "bytes", stats.bytes(),
              "maxBytes", stats.maxBytes(),
              "fsync", stats.fsync()));
      engine
          .sharedState()
          .ifPresent(
              state -> {
                Map<String, Integer> lanesByHost = new java.util.TreeMap<>();
                state.holders().values().forEach(h -> lanesByHost.merge(h, 1, Integer::sum));
                health.withDetail(
                    "shared",
                    Map.of(
                        "host", state.host(),
                        "liveHosts", state.liveHosts(),
                        "lanesByHost", lanesByHost));
              });
    }
    return health.build();
  }

  private static Map<String, Object> details(OutboxStats stats, boolean late) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("pending", stats.pending());
    details.put("oldestAge", stats.oldestAge().toString());
    details.put("lagging", late);
    return details;
  }
}
