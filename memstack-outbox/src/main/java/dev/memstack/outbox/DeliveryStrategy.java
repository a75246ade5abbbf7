package dev.memstack.outbox;

import dev.memstack.outbox.journal.JournalRecord;
import dev.memstack.outbox.journal.SharedJournal;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * How the {@link OutboxEngine} spreads records over lanes: {@link LocalDelivery} when this host is
 * the journal's only writer (one lane per provider, fed by the engine), {@link SharedDelivery} when
 * several hosts share it (one lane per provider and shard, each reading the journal while this host
 * holds its lease). The engine does what both have in common: checks, the turn and erasure records,
 * erasure outcomes, storage erasure, maintenance scheduling and shutdown.
 */
interface DeliveryStrategy {

  /** Creates the lanes the journal already knows (replaying it where the lanes are fed). */
  void open() throws IOException;

  /** Logs what was opened. */
  void logOpened();

  /**
   * Admits and appends a turn for {@code recipients} and hands it to their lanes; returns once it
   * is durable.
   *
   * @throws TurnOutboxFullException when a bound would be passed
   */
  void enqueue(JournalRecord record, byte[] body, List<String> recipients) throws IOException;

  /**
   * Appends an owner erasure, drops the owner's waiting turns and waits up to {@code erase-wait}
   * for the running recipients; the answer is built by {@link OutboxEngine#outcomes}.
   */
  OwnerErasure erase(
      OwnerKey owner, JournalRecord record, List<String> recipients, Set<String> unsupported)
      throws IOException;

  /** The strategy's part of a maintenance pass (after the engine's storage erasures). */
  void maintain();

  /** The backlog per provider id, sorted by id. */
  List<OutboxEngine.Backlog> backlog(Instant now);

  /** What the hosts sharing the journal see; empty over a local journal. */
  Optional<SharedJournal.State> sharedState();

  /** {@code journal}, {@code memory} or {@code postgres}. */
  String journalType();

  /** Whether a record is durable before it is acknowledged. */
  boolean forced();
}
