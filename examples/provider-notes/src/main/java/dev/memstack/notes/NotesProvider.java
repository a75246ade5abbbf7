package dev.memstack.notes;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.Turn;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Keeps what each owner said (the user message of every synced turn) in memory, and recalls the
 * owner's notes that share words with the query. Nothing survives a restart; a real provider would
 * write to {@link dev.memstack.spi.ProviderContext#dataDir()}.
 *
 * <p>Thread-safe without locks: each owner's notes are an immutable list, replaced atomically by
 * {@link ConcurrentHashMap#compute} on every write, so a recall reads a consistent snapshot.
 */
final class NotesProvider implements MemoryProvider {

  /** One remembered message; {@code words} is precomputed for scoring. */
  private record Note(String turnId, AgentId agent, String text, Set<String> words, Instant time) {}

  /** A note and its score for one query. */
  private record Scored(Note note, double score) {}

  /** Best score first; among equal scores the newest, then by turn id: deterministic answers. */
  private static final Comparator<Scored> ORDER =
      Comparator.comparingDouble(Scored::score)
          .reversed()
          .thenComparing(s -> s.note().time(), Comparator.reverseOrder())
          .thenComparing(s -> s.note().turnId());

  private final String id;
  private final int maxNotes;
  // Keyed by owner: a recall only ever looks at the requesting owner's own list, so one owner's
  // notes cannot reach another owner's answer.
  private final Map<OwnerKey, List<Note>> notesByOwner = new ConcurrentHashMap<>();
  private volatile boolean closed;

  NotesProvider(String id, int maxNotes) {
    this.id = id;
    this.maxNotes = maxNotes;
  }

  @Override
  public String id() {
    return id;
  }

  /** Exactly what this class implements; the kit skips the checks of everything else. */
  @Override
  public Set<Capability> capabilities() {
    return Set.of(Capability.PERSONAL_MEMORY, Capability.RECALLS_TURNS, Capability.FORGET);
  }

  /** No shared (TEAM/GLOBAL) memory, so nothing for the system prompt; never personal notes. */
  @Override
  public String systemPromptBlock(AgentId agent) {
    ensureOpen();
    return "";
  }

  @Override
  public Recall prefetch(RecallRequest request) {
    ensureOpen();
    Set<String> query = words(request.query());
    if (request.owner() == null || query.isEmpty()) {
      return Recall.empty(); // no owner: only shared memory may be returned, and we have none
    }
    // This loop is in-memory and fast; a slower provider would check request.deadline() in it.
    List<Scored> hits = new ArrayList<>();
    for (Note note : notesByOwner.getOrDefault(request.owner(), List.of())) {
      if (!note.agent().equals(request.agent())) {
        continue; // an owner's notes of one agent are not recalled for another
      }
      long shared = query.stream().filter(note.words()::contains).count();
      if (shared > 0) {
        hits.add(new Scored(note, (double) shared / query.size())); // share of query words: 0..1
      }
    }
    return Recall.of(
        hits.stream()
            .sorted(ORDER)
            .limit(request.limit())
            .map(s -> item(s, request.owner()))
            .toList());
  }

  private RecallItem item(Scored scored, OwnerKey owner) {
    Note note = scored.note();
    // "id" metadata names the item (host APIs and feedback use it); source must be our id.
    return new RecallItem(
        note.text(),
        scored.score(),
        Scope.PERSONAL,
        owner,
        id,
        note.time(),
        Map.of("id", note.turnId()));
  }

  /** Stores the user's message once per agent, owner and turn id (delivery is at least once). */
  @Override
  public void syncTurn(Turn turn) {
    ensureOpen();
    if (turn.userMessage().isBlank()) {
      return; // only the reply was given: nothing the owner said to keep
    }
    Note note =
        new Note(
            turn.turnId(),
            turn.agent(),
            turn.userMessage(),
            words(turn.userMessage()),
            turn.time());
    notesByOwner.compute(
        turn.owner(),
        (owner, notes) -> {
          List<Note> next = notes == null ? new ArrayList<>() : new ArrayList<>(notes);
          // a turn id is unique per agent and owner: the list is the owner's, so match the agent
          if (next.stream()
              .anyMatch(n -> n.turnId().equals(note.turnId()) && n.agent().equals(note.agent()))) {
            return notes; // a redelivery: keep the list as it is
          }
          next.add(note);
          if (next.size() > maxNotes) {
            next.remove(0); // the oldest note goes first
          }
          return List.copyOf(next);
        });
  }

  /** Erases the owner's notes of every agent; returns how many there were. */
  @Override
  public long forget(OwnerKey owner) {
    ensureOpen();
    List<Note> removed = notesByOwner.remove(owner);
    return removed == null ? 0 : removed.size();
  }

  @Override
  public ProviderHealth health() {
    return closed ? ProviderHealth.down("closed") : ProviderHealth.up();
  }

  /** Called once, after the last call; later calls (but health) fail with IllegalStateException. */
  @Override
  public void close() {
    closed = true;
    notesByOwner.clear();
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("provider " + id + " is closed");
    }
  }

  /** Lower-case words of letters and digits; "Zeppelin," and "zeppelin" are the same word. */
  private static Set<String> words(String text) {
    return Arrays.stream(text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+"))
        .filter(w -> !w.isEmpty())
        .collect(Collectors.toUnmodifiableSet());
  }
}
