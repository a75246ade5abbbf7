package dev.memstack.outbox.journal;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Where a journal keeps its dead letters: each one's description and its record ({@link
 * JournalRecord#encode()}), kept until an admin retries or deletes it or its owner is erased. A
 * persistent journal's dead letters survive a restart; a shared journal's are seen by every host.
 * Every method is thread-safe; ids are checked with {@link DeadLetter#isId} (an id that is not one
 * is simply not found).
 */
public interface DeadLetterStore {

  /** Keeps a dead letter; putting the same id again replaces it. Durable when this returns. */
  void put(DeadLetter letter, byte[] record) throws IOException;

  /** Every dead letter, oldest parked first. */
  List<DeadLetter> list() throws IOException;

  /** The record kept with dead letter {@code id}, if there is one. */
  Optional<byte[]> record(String id) throws IOException;

  /** Deletes dead letter {@code id}; whether there was one. */
  boolean remove(String id) throws IOException;

  /** Deletes every dead letter of {@code owner}; how many there were. */
  int removeOwner(String owner) throws IOException;
}
