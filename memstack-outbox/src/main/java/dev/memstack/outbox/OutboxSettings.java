package dev.memstack.outbox;

import java.time.Duration;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * What the outbox engine and its journals are told, in plain values; the host maps its {@code
 * memstack.outbox.*} properties onto it (and names the keys in its own validation messages).
 *
 * @param segmentSizeBytes size at which the file journal starts a new segment file
 * @param maxPending most turns waiting for one provider before new turns are refused
 * @param maxJournalSizeBytes most bytes the journal may hold before new turns are refused
 * @param fsync whether the file journal forces a record to disk before it is acknowledged
 * @param eraseWait how long an owner erasure waits for the providers' answers
 * @param deliveryBatch most waiting turns handed to a provider that takes batches in one call
 * @param initialBackoff wait before a failed delivery is tried again (doubling per failure)
 * @param maxBackoff longest wait between two delivery attempts
 * @param shutdownGrace how long close waits for deliveries in progress (and memory queues)
 * @param shards shards of a shared journal (records split by owner)
 * @param leaseTtl how long a host's lease on a shared lane lasts without renewal
 * @param maxAttempts failed deliveries of one turn after which it is parked as a dead letter, if
 *     the provider is storing other turns meanwhile (rejections park at once; outages never do)
 */
public record OutboxSettings(
    long segmentSizeBytes,
    int maxPending,
    long maxJournalSizeBytes,
    boolean fsync,
    Duration eraseWait,
    int deliveryBatch,
    Duration initialBackoff,
    Duration maxBackoff,
    Duration shutdownGrace,
    int shards,
    Duration leaseTtl,
    int maxAttempts) {

  /** Smallest segment size (4 KB). */
  public static final long MIN_SEGMENT_SIZE_BYTES = 4 * 1024;

  /** Most shards. */
  public static final int MAX_SHARDS = 1024;

  public OutboxSettings {
    if (Stream.of(eraseWait, initialBackoff, maxBackoff, shutdownGrace, leaseTtl)
        .anyMatch(Objects::isNull)) {
      throw new NullPointerException("every duration of the outbox settings is required");
    }
    if (segmentSizeBytes < MIN_SEGMENT_SIZE_BYTES) {
      throw new IllegalArgumentException("segment size below 4KB: " + segmentSizeBytes);
    }
    if (maxPending < 1) {
      throw new IllegalArgumentException("max pending below 1: " + maxPending);
    }
    if (maxJournalSizeBytes < segmentSizeBytes) {
      throw new IllegalArgumentException("journal size below the segment size");
    }
    if (deliveryBatch < 1 || deliveryBatch > 1024) {
      throw new IllegalArgumentException("delivery batch not within 1-1024: " + deliveryBatch);
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("max attempts below 1: " + maxAttempts);
    }
    if (shards < 1 || shards > MAX_SHARDS) {
      throw new IllegalArgumentException("shards not within 1-" + MAX_SHARDS + ": " + shards);
    }
  }

  /** Every setting at the default of {@code memstack.outbox.*}. */
  public static OutboxSettings defaults() {
    return new OutboxSettings(
        64L * 1024 * 1024,
        100_000,
        1024L * 1024 * 1024,
        true,
        Duration.ofSeconds(10),
        32,
        Duration.ofSeconds(1),
        Duration.ofMinutes(5),
        Duration.ofSeconds(5),
        16,
        Duration.ofSeconds(5),
        5);
  }
}
