package dev.memstack.outbox;

import java.time.Duration;

/**
 * {@link OutboxSettings} for tests: the defaults with the few values a test changes, e.g. {@code
 * OutboxSettingsBuilder.defaults().maxPending(3).fastRetry().build()}. Ships in the test-jar.
 */
public final class OutboxSettingsBuilder {

  private long segmentSizeBytes;
  private int maxPending;
  private long maxJournalSizeBytes;
  private boolean fsync;
  private Duration eraseWait;
  private int deliveryBatch;
  private Duration initialBackoff;
  private Duration maxBackoff;
  private Duration shutdownGrace;
  private int shards;
  private Duration leaseTtl;
  private int maxAttempts;

  private OutboxSettingsBuilder(OutboxSettings from) {
    segmentSizeBytes = from.segmentSizeBytes();
    maxPending = from.maxPending();
    maxJournalSizeBytes = from.maxJournalSizeBytes();
    fsync = from.fsync();
    eraseWait = from.eraseWait();
    deliveryBatch = from.deliveryBatch();
    initialBackoff = from.initialBackoff();
    maxBackoff = from.maxBackoff();
    shutdownGrace = from.shutdownGrace();
    shards = from.shards();
    leaseTtl = from.leaseTtl();
    maxAttempts = from.maxAttempts();
  }

  /** Starts from {@link OutboxSettings#defaults()}. */
  public static OutboxSettingsBuilder defaults() {
    return new OutboxSettingsBuilder(OutboxSettings.defaults());
  }

  /** Starts from {@code settings}. */
  public static OutboxSettingsBuilder from(OutboxSettings settings) {
    return new OutboxSettingsBuilder(settings);
  }

  /** Retries after 20 ms up to 100 ms, and no shutdown grace. */
  public OutboxSettingsBuilder fastRetry() {
    return initialBackoff(Duration.ofMillis(20))
        .maxBackoff(Duration.ofMillis(100))
        .shutdownGrace(Duration.ZERO);
  }

  public OutboxSettingsBuilder segmentSizeBytes(long value) {
    segmentSizeBytes = value;
    return this;
  }

  public OutboxSettingsBuilder maxPending(int value) {
    maxPending = value;
    return this;
  }

  public OutboxSettingsBuilder maxJournalSizeBytes(long value) {
    maxJournalSizeBytes = value;
    return this;
  }

  public OutboxSettingsBuilder fsync(boolean value) {
    fsync = value;
    return this;
  }

  public OutboxSettingsBuilder eraseWait(Duration value) {
    eraseWait = value;
    return this;
  }

  public OutboxSettingsBuilder deliveryBatch(int value) {
    deliveryBatch = value;
    return this;
  }

  public OutboxSettingsBuilder initialBackoff(Duration value) {
    initialBackoff = value;
    return this;
  }

  public OutboxSettingsBuilder maxBackoff(Duration value) {
    maxBackoff = value;
    return this;
  }

  public OutboxSettingsBuilder shutdownGrace(Duration value) {
    shutdownGrace = value;
    return this;
  }

  public OutboxSettingsBuilder shards(int value) {
    shards = value;
    return this;
  }

  public OutboxSettingsBuilder maxAttempts(int value) {
    maxAttempts = value;
    return this;
  }

  public OutboxSettingsBuilder leaseTtl(Duration value) {
    leaseTtl = value;
    return this;
  }

  public OutboxSettings build() {
    return new OutboxSettings(
        segmentSizeBytes,
        maxPending,
        maxJournalSizeBytes,
        fsync,
        eraseWait,
        deliveryBatch,
        initialBackoff,
        maxBackoff,
        shutdownGrace,
        shards,
        leaseTtl,
        maxAttempts);
  }
}
