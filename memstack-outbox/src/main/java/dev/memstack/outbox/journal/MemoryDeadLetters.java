package dev.memstack.outbox.journal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Dead letters in the heap, lost when the host stops (the memory journal's). */
public final class MemoryDeadLetters implements DeadLetterStore {

  private record Kept(DeadLetter letter, byte[] record) {}

  private final Map<String, Kept> letters = new LinkedHashMap<>();

  @Override
  public synchronized void put(DeadLetter letter, byte[] record) {
    letters.put(letter.id(), new Kept(letter, record.clone()));
  }

  @Override
  public synchronized List<DeadLetter> list() {
    List<DeadLetter> all = new ArrayList<>();
    letters.values().forEach(kept -> all.add(kept.letter()));
    all.sort(DeadLetter.PARKED_ORDER);
    return all;
  }

  @Override
  public synchronized Optional<byte[]> record(String id) {
    Kept kept = letters.get(id);
    return kept == null ? Optional.empty() : Optional.of(kept.record().clone());
  }

  @Override
  public synchronized boolean remove(String id) {
    return letters.remove(id) != null;
  }

  @Override
  public synchronized int removeOwner(String owner) {
    int before = letters.size();
    letters.values().removeIf(kept -> kept.letter().owner().equals(owner));
    return before - letters.size();
  }
}
