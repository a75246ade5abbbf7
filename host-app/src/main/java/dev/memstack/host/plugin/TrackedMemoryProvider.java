package dev.memstack.host.plugin;

import dev.memstack.host.provider.PluginClassLoader;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolSpec;
import dev.memstack.spi.Turn;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host's handle on one provider instance: forwards every call to the plugin's provider and
 * counts the calls that are running, so that a plugin stop or reload can let them finish before it
 * closes the instance ({@link #retireAndClose(Duration)}). A call that arrives after the instance
 * was closed fails with {@link IllegalStateException}, as the SPI promises, without reaching the
 * plugin. Thread-safe.
 */
final class TrackedMemoryProvider implements MemoryProvider {

  private static final Logger log = LoggerFactory.getLogger(TrackedMemoryProvider.class);

  /** How long a retired instance keeps serving calls that read the stack just before. */
  static final Duration SETTLE = Duration.ofMillis(100);

  private final String id;
  private final MemoryProvider delegate;
  private final ClassLoader classLoader;
  private final Object monitor = new Object();
  private volatile boolean closed;
  private int running;

  TrackedMemoryProvider(String id, MemoryProvider delegate, ClassLoader classLoader) {
    this.id = Objects.requireNonNull(id, "id");
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.classLoader = Objects.requireNonNull(classLoader, "classLoader");
  }

  /** How many calls are running now. */
  int running() {
    synchronized (monitor) {
      return running;
    }
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * Waits until no call is running (and at least {@link #SETTLE}, capped by {@code grace}) or until
   * {@code grace} has passed, then closes the provider under its class loader. Closes once; later
   * calls return at once.
   *
   * @return whether every running call had finished before the close
   */
  boolean retireAndClose(Duration grace) {
    boolean idle;
    synchronized (monitor) {
      long start = System.nanoTime();
      long deadline = start + grace.toNanos();
      // A caller that read the stack just before this instance left it may call a moment later;
      // keep serving for a short settle time so such calls do not fail.
      long settled = start + Math.min(grace.toNanos(), SETTLE.toNanos());
      while (!closed && (running > 0 || System.nanoTime() < settled)) {
        long now = System.nanoTime();
        long left = deadline - now;
        if (left <= 0) {
          break;
        }
        long wait = running > 0 ? left : Math.min(left, settled - now);
        try {
          monitor.wait(Math.max(1, wait / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      if (closed) {
        return true;
      }
      idle = running == 0;
      closed = true;
    }
    if (!idle) {
      log.warn(
          "Closing provider {} with {} call(s) still running after {} ms",
          id,
          running(),
          grace.toMillis());
    }
    try {
      PluginClassLoader.run(classLoader, delegate::close);
    } catch (RuntimeException e) {
      log.warn("Provider {} failed to close: {}", id, e.toString());
    }
    return idle;
  }

  private <T> T track(Supplier<T> call) {
    synchronized (monitor) {
      if (closed) {
        throw new IllegalStateException(
            "provider " + id + " is closed (its plugin was stopped or reloaded)");
      }
      running++;
    }
    try {
      return call.get();
    } finally {
      synchronized (monitor) {
        running--;
        if (running == 0) {
          monitor.notifyAll();
        }
      }
    }
  }

  private void trackRun(Runnable call) {
    track(
        () -> {
          call.run();
          return null;
        });
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String systemPromptBlock(AgentId agent) {
    return track(() -> delegate.systemPromptBlock(agent));
  }

  @Override
  public String ownerPromptBlock(AgentId agent, OwnerKey owner) {
    return track(() -> delegate.ownerPromptBlock(agent, owner));
  }

  @Override
  public Recall prefetch(RecallRequest request) {
    return track(() -> delegate.prefetch(request));
  }

  @Override
  public int feedback(AgentId agent, OwnerKey owner, List<String> ids) {
    return track(() -> delegate.feedback(agent, owner, ids));
  }

  @Override
  public int wrong(AgentId agent, OwnerKey owner, List<String> ids) {
    return track(() -> delegate.wrong(agent, owner, ids));
  }

  @Override
  public void syncTurn(Turn turn) {
    trackRun(() -> delegate.syncTurn(turn));
  }

  @Override
  public void syncTurns(List<Turn> turns) {
    trackRun(() -> delegate.syncTurns(turns));
  }

  @Override
  public Set<Capability> capabilities() {
    return track(delegate::capabilities);
  }

  @Override
  public List<ToolSpec> tools() {
    return track(delegate::tools);
  }

  @Override
  public String callTool(ToolCall call) {
    return track(() -> delegate.callTool(call));
  }

  @Override
  public long forget(OwnerKey owner) {
    return track(() -> delegate.forget(owner));
  }

  @Override
  public void onSessionEnd(AgentId agent, OwnerKey owner, String conversationId) {
    trackRun(() -> delegate.onSessionEnd(agent, owner, conversationId));
  }

  @Override
  public ProviderHealth health() {
    return track(delegate::health);
  }

  /**
   * Closes at once, without waiting for running calls; the registry uses {@link #retireAndClose}.
   */
  @Override
  public void close() {
    retireAndClose(Duration.ZERO);
  }

  @Override
  public String toString() {
    return "provider " + id + " (" + delegate.getClass().getName() + ")";
  }
}
