package dev.memstack.builtin.store.postgres;

import dev.memstack.builtin.concurrent.DaemonThreads;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Scope;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the host about system prompt changes made by other hosts: every interval it reads the
 * change versions of the TEAM and GLOBAL buckets (one small query) and reports each agent whose
 * TEAM bucket changed ({@code null} for the GLOBAL one) to {@code promptChanged}, so the host's
 * prompt cache of this host does not keep a block another host's write made stale. The first read
 * only sets the baseline. A daemon thread; failures are logged and the next round tries again.
 */
public final class PgPromptWatcher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PgPromptWatcher.class);

  private final PostgresWorkspaceStore store;
  private final Consumer<AgentId> promptChanged;
  private final ScheduledExecutorService executor;
  private Map<Bucket, Long> seen;

  /**
   * Starts watching; {@code interval} must be positive.
   *
   * @param promptChanged told of changed agents, {@code null} meaning every agent
   */
  public PgPromptWatcher(
      PostgresWorkspaceStore store, Duration interval, Consumer<AgentId> promptChanged) {
    this.store = Objects.requireNonNull(store, "store");
    this.promptChanged = Objects.requireNonNull(promptChanged, "promptChanged");
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("memstack-builtin-prompt-watcher"));
    long millis = Math.max(1, interval.toMillis());
    executor.scheduleWithFixedDelay(this::poll, 0, millis, TimeUnit.MILLISECONDS);
  }

  /** One round (called by the thread; visible for tests). */
  synchronized void poll() {
    Map<Bucket, Long> now;
    try {
      now = store.sharedVersions();
    } catch (RuntimeException e) {
      log.warn("cannot read the prompt versions: {}", e.toString());
      return;
    }
    if (seen != null) {
      for (Map.Entry<Bucket, Long> bucket : now.entrySet()) {
        if (!bucket.getValue().equals(seen.get(bucket.getKey()))) {
          tell(bucket.getKey());
        }
      }
      for (Bucket gone : seen.keySet()) {
        if (!now.containsKey(gone)) {
          tell(gone);
        }
      }
    }
    seen = new HashMap<>(now);
  }

  private void tell(Bucket bucket) {
    try {
      promptChanged.accept(bucket.scope() == Scope.GLOBAL ? null : bucket.agent());
    } catch (RuntimeException e) {
      log.warn("telling a prompt change failed: {}", e.toString());
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
