package dev.memstack.outbox;

/**
 * How the outbox treats one provider's backlog ({@code memstack.providers.<id>.optional} and {@code
 * .max-backlog}). A required provider holds turns back: past {@code memstack.outbox.max-pending}
 * turns waiting for it, new turns are refused. An optional provider never does: its waiting turns
 * stay outside that count and are delivered in order when it returns, up to {@code maxBacklog};
 * beyond that its oldest waiting turns are dropped (counted, never delivered to it) so that the
 * journal can be freed behind them.
 *
 * @param optional whether the provider's backlog may refuse turns ({@code false}) or not
 * @param maxBacklog most turns kept waiting for an optional provider; at least 1
 */
public record ProviderPolicy(boolean optional, int maxBacklog) {

  /**
   * The default of {@code max-backlog}: the default {@code max-pending}, so that an optional
   * provider keeps as many turns as a required one holds before turns are refused.
   */
  public static final int DEFAULT_MAX_BACKLOG = 100_000;

  /** A required provider (the default of every provider). */
  public static final ProviderPolicy REQUIRED = new ProviderPolicy(false, DEFAULT_MAX_BACKLOG);

  public ProviderPolicy {
    if (maxBacklog < 1) {
      throw new IllegalArgumentException("max backlog below 1: " + maxBacklog);
    }
  }

  /** An optional provider that keeps up to {@code maxBacklog} waiting turns. */
  public static ProviderPolicy optional(int maxBacklog) {
    return new ProviderPolicy(true, maxBacklog);
  }
}
