package dev.memstack.spi;

import java.util.Map;
import java.util.WeakHashMap;

/**
 * The in-process {@link Coordination} of a context that does not provide its own, one per context
 * for as long as the context lives, so that every call of {@link ProviderContext#coordination()}
 * answers from the same locks and counters.
 */
final class LocalCoordinations {

  private static final Map<ProviderContext, Coordination> BY_CONTEXT = new WeakHashMap<>();

  private LocalCoordinations() {}

  static Coordination of(ProviderContext context) {
    synchronized (BY_CONTEXT) {
      return BY_CONTEXT.computeIfAbsent(context, c -> Coordination.local(c.clock()));
    }
  }
}
