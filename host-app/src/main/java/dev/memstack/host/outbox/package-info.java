/**
 * The turn outbox: accepted turns and owner erasures wait here for every provider. Read top to
 * bottom: {@link dev.memstack.host.outbox.TurnOutbox} and {@link
 * dev.memstack.host.outbox.OwnerEraser} (what the stack and the API use), {@link
 * dev.memstack.host.outbox.OutboxEngine} (admission, erasure, maintenance, close), {@link
 * dev.memstack.host.outbox.Lane} (one provider's queue and thread: batching, backoff, cursor),
 * {@code Delivery} (the provider calls), and the {@link dev.memstack.host.outbox.Journal} interface
 * with its journals: {@link dev.memstack.host.outbox.FileJournal} (segment files and cursor files,
 * survives a crash), {@link dev.memstack.host.outbox.MemoryJournal} and, in shared mode, {@link
 * dev.memstack.host.outbox.PostgresJournal} (a {@link dev.memstack.host.outbox.SharedJournal}:
 * every host of a deployment appends to it and delivers its leased lanes from it). Every journal
 * passes the same conformance test. Settings are {@code memstack.outbox.*}.
 */
package dev.memstack.host.outbox;
