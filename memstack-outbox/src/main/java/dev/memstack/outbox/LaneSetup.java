package dev.memstack.outbox;

import dev.memstack.outbox.journal.Journal;
import dev.memstack.support.Require;

/**
 * What a lane is given: its journal, the provider calls of its provider, the delivery batch, the
 * backoff and its own {@link Triage} of failed turns.
 */
record LaneSetup(
    Journal journal, LaneCalls calls, int deliveryBatch, Backoff backoff, Triage triage) {

  LaneSetup {
    Require.nonNull("journal calls backoff triage", journal, calls, backoff, triage);
  }
}
