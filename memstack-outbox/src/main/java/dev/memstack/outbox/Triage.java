package dev.memstack.outbox;

import dev.memstack.outbox.journal.DeadLetter;
import dev.memstack.outbox.journal.DeadLetterStore;
import dev.memstack.outbox.journal.Journal;
import dev.memstack.outbox.journal.JournalRecord;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a lane's failed turn comes to. A rejection ({@code TurnRejectedException}) parks the turn at
 * once; a provider that is away or timed out is retried without limit and never counts; any other
 * failure counts, and from {@code max-attempts} failures of the same record on the lane tries the
 * next turn behind it (a probe): only when that one goes through, so the provider is storing other
 * turns, is the failing one parked. An outage therefore parks nothing. One per lane, used by its
 * thread only.
 */
final class Triage {

  private static final Logger log = LoggerFactory.getLogger(Triage.class);

  /** What to do after a failed attempt. */
  enum Verdict {
    /** Retry after the backoff. */
    RETRY,
    /** Try the next turn; park this one if that goes through. */
    PROBE,
    /** Park it now. */
    PARK
  }

  private final String providerId;
  private final Journal journal;
  private final DeadLetterStore store;
  private final int maxAttempts;
  private final Clock clock;

  private long failingPosition = -1;
  private int failures;

  Triage(String providerId, Journal journal, int maxAttempts, Clock clock) {
    this.providerId = Objects.requireNonNull(providerId, "providerId");
    this.journal = Objects.requireNonNull(journal, "journal");
    this.store = journal.deadLetters();
    this.maxAttempts = maxAttempts;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Books a failed attempt of {@code entry} and says what comes next. */
  Verdict after(Journal.Entry entry, Attempt attempt) {
    if (Attempt.UNAVAILABLE.equals(attempt.outcome())) {
      return Verdict.RETRY;
    }
    if (entry.position() != failingPosition) {
      failingPosition = entry.position();
      failures = 0;
    }
    failures++;
    if (Attempt.REJECTED.equals(attempt.outcome())) {
      return Verdict.PARK;
    }
    return failures >= maxAttempts ? Verdict.PROBE : Verdict.RETRY;
  }

  /**
   * Stores {@code entry} as a dead letter of this provider; whether it is stored (when it is not,
   * the lane retries it later).
   */
  boolean park(Journal.Entry entry, Attempt attempt) {
    try {
      JournalRecord record = journal.read(entry);
      Turn turn = record.turn();
      String reason =
          Attempt.REJECTED.equals(attempt.outcome()) ? DeadLetter.REJECTED : DeadLetter.FAILING;
      DeadLetter letter =
          new DeadLetter(
              DeadLetter.idOf(entry.position(), providerId),
              providerId,
              entry.position(),
              entry.owner(),
              turn == null ? null : turn.agent().value(),
              turn == null ? null : turn.conversationId(),
              turn == null ? null : turn.turnId(),
              Instant.ofEpochMilli(entry.acceptedAtMillis()),
              clock.instant(),
              failures,
              reason,
              attempt.detail());
      store.put(letter, record.encode());
      log.warn(
          "Provider {} {} outbox record {} after {} attempt(s) ({}); parked as dead letter {},"
              + " the next turns are delivered",
          providerId,
          DeadLetter.REJECTED.equals(reason) ? "rejected" : "kept failing on",
          entry.position(),
          failures,
          attempt.detail(),
          letter.id());
      reset();
      return true;
    } catch (IOException | RuntimeException e) {
      log.warn(
          "Could not park outbox record {} of provider {} as a dead letter ({}); retrying it",
          entry.position(),
          providerId,
          e.toString());
      return false;
    }
  }

  /**
   * The first turn behind {@code failing} in {@code queue} that may be delivered (before {@code
   * durable}), or {@code null}: none, or an erasure comes first (its owner's later turns must wait
   * for it).
   */
  static Journal.Entry turnBehind(
      Iterable<Journal.Entry> queue, Journal.Entry failing, long durable) {
    boolean behind = false;
    for (Journal.Entry entry : queue) {
      if (behind) {
        return !entry.erase() && entry.position() < durable ? entry : null;
      }
      behind = entry == failing;
    }
    return null;
  }

  /** The failing record went through or left the lane. */
  void reset() {
    failingPosition = -1;
    failures = 0;
  }
}
