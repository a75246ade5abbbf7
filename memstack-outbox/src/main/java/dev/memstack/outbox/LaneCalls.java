package dev.memstack.outbox;

import dev.memstack.outbox.DeliveryPort.Recipient;
import dev.memstack.outbox.journal.CorruptRecordException;
import dev.memstack.outbox.journal.ErasedRecordException;
import dev.memstack.outbox.journal.Journal;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider calls of one lane: hands journal records to the provider of one id, looked up at
 * call time (a reloaded plugin gets what was queued before the reload), through {@link
 * ProviderCalls}. Every method answers with {@link Attempt}s and never throws but for fatal VM
 * errors.
 */
final class LaneCalls {

  private static final Logger log = LoggerFactory.getLogger(LaneCalls.class);

  private final String providerId;
  private final DeliveryPort port;
  private final Journal journal;

  LaneCalls(String providerId, DeliveryPort port, Journal journal) {
    this.providerId = Objects.requireNonNull(providerId, "providerId");
    this.port = Objects.requireNonNull(port, "port");
    this.journal = Objects.requireNonNull(journal, "journal");
  }

  /** Whether the provider takes batches ({@code BATCH_SYNC}); asked before each batch. */
  boolean takesBatches() {
    return port.find(providerId)
        .map(
            m -> {
              try {
                return m.claims(Capability.BATCH_SYNC);
              } catch (RuntimeException e) {
                return false;
              }
            })
        .orElse(false);
  }

  /**
   * Hands the turns to the provider in one call ({@code syncTurns}), or one by one when there is
   * one or the batch call fails: then every turn gets its own attempt, and a poison turn holds up
   * only itself and the turns after it, as without batches. Returns the attempts of the entries
   * from the first, in order; the last one may have failed, and the entries after it were not
   * tried.
   */
  List<Attempt> deliver(List<Journal.Entry> entries) {
    List<Turn> turns = new ArrayList<>(entries.size()); // null: a damaged record, skipped
    Attempt readFailure = null;
    for (Journal.Entry entry : entries) {
      try {
        turns.add(journal.read(entry).turn());
      } catch (ErasedRecordException e) {
        // its owner was erased while it was on its way here: it is not delivered
        log.debug(
            "Outbox record {} for provider {}: {}", entry.position(), providerId, e.getMessage());
        turns.add(null);
      } catch (CorruptRecordException e) {
        log.error(
            "Outbox record {} for provider {} cannot be read and is skipped: {}",
            entry.position(),
            providerId,
            e.getMessage());
        turns.add(null);
      } catch (IOException e) {
        readFailure = Attempt.unavailable("cannot read the journal: " + e);
        break;
      }
    }
    Optional<Recipient> member = port.find(providerId);
    if (member.isEmpty()) {
      return List.of(Attempt.unavailable("provider " + providerId + " is not running"));
    }
    Recipient m = member.get();
    List<Attempt> attempts = new ArrayList<>(entries.size());
    List<Turn> batch = turns.stream().filter(Objects::nonNull).toList();
    boolean batched = false;
    if (batch.size() > 1) {
      try {
        m.syncTurns(batch);
        batched = true;
      } catch (Throwable e) {
        rethrowFatal(e);
        log.debug(
            "Provider {} failed a batch of {} turns ({}); delivering them one by one",
            providerId,
            batch.size(),
            Failures.describe(e));
      }
    }
    for (int i = 0; i < turns.size(); i++) {
      Turn turn = turns.get(i);
      if (turn == null) {
        attempts.add(
            new Attempt(
                Attempt.SKIPPED,
                0,
                "record " + entries.get(i).position() + " is damaged or erased",
                true));
      } else if (batched) {
        attempts.add(new Attempt(Attempt.DELIVERED, 0, null, true));
      } else {
        try {
          m.syncTurn(turn);
          attempts.add(new Attempt(Attempt.DELIVERED, 0, null, true));
        } catch (Throwable e) {
          rethrowFatal(e);
          attempts.add(Attempt.failed(e));
          return attempts;
        }
      }
    }
    if (readFailure != null) {
      attempts.add(readFailure);
    }
    return attempts;
  }

  /** Asks the provider to forget every memory of {@code ownerKey}. */
  Attempt forget(String ownerKey) {
    Optional<Recipient> member = port.find(providerId);
    if (member.isEmpty()) {
      return new Attempt(
          ProviderErasure.QUEUED,
          0,
          "provider " + providerId + " is not running; the erasure waits for it",
          false);
    }
    Recipient m = member.get();
    if (!canForget(m)) {
      return new Attempt(
          ProviderErasure.UNSUPPORTED, 0, "provider " + providerId + " cannot forget owners", true);
    }
    OwnerKey owner = OwnerKey.of(ownerKey);
    try {
      long removed = m.forget(owner);
      return new Attempt(ProviderErasure.ERASED, Math.max(0, removed), null, true);
    } catch (Throwable e) {
      rethrowFatal(e);
      return new Attempt(
          ProviderErasure.ERROR,
          0,
          Failures.describe(e) + "; the erasure stays queued and is retried",
          false);
    }
  }

  /** Whether the member claims {@code FORGET}; a failing capability check lets it try. */
  static boolean canForget(Recipient member) {
    try {
      return member.claims(Capability.FORGET);
    } catch (RuntimeException e) {
      return true; // let the erasure itself report the failure
    }
  }

  static void rethrowFatal(Throwable e) {
    if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
      throw (VirtualMachineError) e;
    }
  }
}
