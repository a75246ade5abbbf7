package dev.memstack.host.outbox;

import static dev.memstack.host.SettingChecks.atLeast;
import static dev.memstack.host.SettingChecks.positive;

import dev.memstack.outbox.OutboxSettings;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the turn outbox ({@code memstack.outbox.*}). A missing value takes its default; a
 * value out of range stops the host at start with a message naming the key. The keys of the first
 * releases under {@code memstack.stack.sync.*} still work as deprecated aliases ({@link
 * DeprecatedOutboxKeys}).
 *
 * @param type Where accepted turns wait for delivery: 'journal' (on disk, survives a crash; the
 *     default), 'memory' (lost when the host stops; bounded by max-pending and max-journal-size
 *     alike) or 'postgres' (on the shared database of memstack.shared.jdbc-url, so that every host
 *     of a deployment delivers and erases every turn; the default when memstack.shared.jdbc-url is
 *     set, and then the only type allowed).
 * @param dir Folder of the journal; defaults to the 'outbox' folder under memstack.data-dir.
 * @param segmentSize Size at which the journal starts a new segment file; a segment is deleted once
 *     every provider has received everything in it.
 * @param maxPending Most turns waiting for one provider; past it new turns are refused with HTTP
 *     503 and a Retry-After header until the provider catches up.
 * @param maxJournalSize Most bytes the journal may hold on disk; past it new turns are refused with
 *     HTTP 503 and a Retry-After header.
 * @param fsync Whether a turn is forced to disk (fdatasync, shared by concurrent submitters) before
 *     it is acknowledged. Turning it off trades crash safety for latency: a turn may then be lost
 *     by a power failure or kernel crash, though not by a crash of the host process alone.
 * @param degradedLag Age of the oldest turn waiting for a provider past which the 'outbox'
 *     component of /actuator/health reports DEGRADED.
 * @param eraseWait How long an owner erasure waits for the providers' answers before it reports the
 *     ones still working as 'queued' (the erasure then completes in the background).
 * @param deliveryBatch Most waiting turns handed to a provider in one call (syncTurns), so that it
 *     can embed and index them together; 1 delivers turns one by one. Only providers that claim the
 *     BATCH_SYNC capability get batches. A batch that fails is delivered again one turn at a time.
 * @param initialBackoff Wait before a failed delivery to a provider is tried again; it doubles with
 *     every failure in a row up to max-backoff.
 * @param maxBackoff Longest wait between two delivery attempts to a failing provider.
 * @param shutdownGrace How long the host waits at shutdown for providers to finish the deliveries
 *     they are in (and, with type 'memory', for the queues to drain: what is still queued then is
 *     lost).
 * @param shards With type 'postgres': how many shards the turns are split into by a hash of their
 *     owner; each provider has one delivery lane per shard, delivered by one host at a time, so up
 *     to this many hosts deliver (and embed) a provider's turns in parallel, in order per owner.
 *     Every host of a deployment must use the same count (1-1024).
 * @param leaseTtl With type 'postgres': how long a host's lease on a delivery lane lasts without
 *     renewal (renewed every third of it); a host that dies loses its lanes after this, and the
 *     other hosts take them over from the saved cursors.
 * @param maxAttempts Failed deliveries of one turn to one provider after which the turn is parked
 *     as a dead letter (GET /api/v1/outbox/dead-letters), so that the turns behind it are
 *     delivered; only while the provider stores other turns meanwhile, so an outage parks nothing.
 *     A provider that is unavailable or times out is retried without limit, and a turn the provider
 *     rejects for good (TurnRejectedException) is parked at once.
 */
@ConfigurationProperties("memstack.outbox")
public record OutboxProperties(
    Type type,
    Path dir,
    @DefaultValue("64MB") DataSize segmentSize,
    @DefaultValue("100000") int maxPending,
    @DefaultValue("1GB") DataSize maxJournalSize,
    @DefaultValue("true") boolean fsync,
    @DefaultValue("2m") Duration degradedLag,
    @DefaultValue("10s") Duration eraseWait,
    @DefaultValue("32") int deliveryBatch,
    @DefaultValue("1s") Duration initialBackoff,
    @DefaultValue("5m") Duration maxBackoff,
    @DefaultValue("5s") Duration shutdownGrace,
    @DefaultValue("16") int shards,
    @DefaultValue("5s") Duration leaseTtl,
    @DefaultValue("5") int maxAttempts) {

  /** Smallest accepted segment size. */
  public static final DataSize MIN_SEGMENT_SIZE =
      DataSize.ofBytes(OutboxSettings.MIN_SEGMENT_SIZE_BYTES);

  /** Where turns wait for delivery. */
  public enum Type {
    /** The durable on-disk journal ({@link dev.memstack.outbox.journal.FileJournal}). */
    JOURNAL,
    /** The in-memory journal ({@link dev.memstack.outbox.journal.MemoryJournal}). */
    MEMORY,
    /**
     * The journal on the shared database ({@link dev.memstack.outbox.postgres.PostgresJournal}).
     */
    POSTGRES
  }

  /** Most shards. */
  public static final int MAX_SHARDS = OutboxSettings.MAX_SHARDS;

  public OutboxProperties {
    segmentSize = segmentSize == null ? DataSize.ofMegabytes(64) : segmentSize;
    if (segmentSize.compareTo(MIN_SEGMENT_SIZE) < 0) {
      throw new IllegalArgumentException(
          "memstack.outbox.segment-size must be at least 4KB, got: " + segmentSize);
    }
    atLeast(maxPending, 1, "memstack.outbox.max-pending");
    maxJournalSize = maxJournalSize == null ? DataSize.ofGigabytes(1) : maxJournalSize;
    if (maxJournalSize.compareTo(segmentSize) < 0) {
      throw new IllegalArgumentException(
          "memstack.outbox.max-journal-size ("
              + maxJournalSize
              + ") must not be smaller than memstack.outbox.segment-size ("
              + segmentSize
              + ")");
    }
    degradedLag = positive(degradedLag, Duration.ofMinutes(2), "memstack.outbox.degraded-lag");
    eraseWait = eraseWait == null ? Duration.ofSeconds(10) : eraseWait;
    if (deliveryBatch < 1 || deliveryBatch > 1024) {
      throw new IllegalArgumentException(
          "memstack.outbox.delivery-batch must be between 1 and 1024, got: " + deliveryBatch);
    }
    initialBackoff =
        positive(initialBackoff, Duration.ofSeconds(1), "memstack.outbox.initial-backoff");
    maxBackoff = positive(maxBackoff, Duration.ofMinutes(5), "memstack.outbox.max-backoff");
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException(
          "memstack.outbox.max-backoff ("
              + maxBackoff
              + ") must not be shorter than memstack.outbox.initial-backoff ("
              + initialBackoff
              + ")");
    }
    if (shutdownGrace == null) {
      shutdownGrace = Duration.ofSeconds(5);
    } else if (shutdownGrace.isNegative()) {
      throw new IllegalArgumentException(
          "memstack.outbox.shutdown-grace must not be negative, got: " + shutdownGrace);
    }
    if (shards < 1 || shards > MAX_SHARDS) {
      throw new IllegalArgumentException(
          "memstack.outbox.shards must be between 1 and " + MAX_SHARDS + ", got: " + shards);
    }
    leaseTtl = leaseTtl == null ? Duration.ofSeconds(5) : leaseTtl;
    if (leaseTtl.toMillis() < 300) {
      throw new IllegalArgumentException(
          "memstack.outbox.lease-ttl must be at least 300ms, got: " + leaseTtl);
    }
    atLeast(maxAttempts, 1, "memstack.outbox.max-attempts");
    if (eraseWait.isNegative()) {
      throw new IllegalArgumentException(
          "memstack.outbox.erase-wait must not be negative, got: " + eraseWait);
    }
  }

  /** Every setting at its default. */
  public static OutboxProperties defaults() {
    return new OutboxProperties(
        null, null, null, 100_000, null, true, null, null, 32, null, null, null, 16, null, 5);
  }

  /**
   * The type in effect: the configured one, else {@code postgres} in shared mode and {@code
   * journal} otherwise.
   */
  public Type effectiveType(boolean sharedMode) {
    return type != null ? type : sharedMode ? Type.POSTGRES : Type.JOURNAL;
  }

  /** The module's settings, from these properties. */
  public OutboxSettings toSettings() {
    return new OutboxSettings(
        segmentSize.toBytes(),
        maxPending,
        maxJournalSize.toBytes(),
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
