package dev.memstack.vector.contradictions;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The embedded store's {@link ContradictionQueue}: {@code <root>/contradictions.jsonl}, one open
 * contradiction a line, held in memory and written anew (a temporary file moved over it) on every
 * change. An inbox is small, and a rewrite leaves no closed contradiction on disk.
 */
public final class FileContradictionQueue implements ContradictionQueue {

  static final String FILE = "contradictions.jsonl";

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<Map<String, Object>> LINE = new TypeReference<>() {};

  private final Path file;
  private final Map<String, Contradiction> open = new LinkedHashMap<>();

  private FileContradictionQueue(Path file) {
    this.file = file;
  }

  /**
   * Reads the queue under {@code root} (none yet: empty).
   *
   * @throws IllegalStateException when the file cannot be read
   */
  public static FileContradictionQueue open(Path root) {
    FileContradictionQueue queue = new FileContradictionQueue(root.resolve(FILE));
    try {
      for (String line : AtomicFiles.load(queue.file).orElse("").split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        try {
          Contradiction c = Contradiction.fromMap(JSON.readValue(line, LINE));
          queue.open.put(c.id(), c);
        } catch (JacksonException | IllegalArgumentException e) {
          // a line this version cannot read is left out
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("embedded vector store: cannot read " + queue.file, e);
    }
    return queue;
  }

  @Override
  public synchronized boolean add(Contradiction contradiction) {
    if (open.putIfAbsent(contradiction.id(), contradiction) != null) {
      return false;
    }
    try {
      write();
    } catch (UncheckedIOException e) {
      open.remove(contradiction.id());
      throw e;
    }
    return true;
  }

  @Override
  public synchronized Optional<Contradiction> get(String id) {
    return Optional.ofNullable(open.get(id));
  }

  @Override
  public synchronized List<Contradiction> visibleTo(AgentId agent, OwnerKey owner) {
    return open.values().stream().filter(c -> c.visibleTo(agent, owner)).toList();
  }

  @Override
  public synchronized List<Contradiction> contradicting(Collection<String> existingIds) {
    if (open.isEmpty()) {
      return List.of();
    }
    Set<String> ids = new HashSet<>(existingIds);
    return open.values().stream().filter(c -> ids.contains(c.existing())).toList();
  }

  @Override
  public synchronized boolean remove(String id) {
    Contradiction removed = open.remove(id);
    if (removed == null) {
      return false;
    }
    write();
    return true;
  }

  @Override
  public synchronized List<Contradiction> removeNaming(String recordId) {
    List<Contradiction> removed = new ArrayList<>();
    open.values().removeIf(c -> c.names(recordId) && removed.add(c));
    if (!removed.isEmpty()) {
      write();
    }
    return removed;
  }

  @Override
  public synchronized long deleteOwner(OwnerKey owner) {
    int before = open.size();
    open.values().removeIf(c -> owner.equals(c.owner()));
    int removed = before - open.size();
    if (removed > 0) {
      write();
    }
    return removed;
  }

  private void write() {
    List<String> lines = new ArrayList<>(open.size());
    open.values().forEach(c -> lines.add(JSON.writeValueAsString(c.toMap())));
    try {
      AtomicFiles.writeLines(file, lines);
    } catch (IOException e) {
      throw new UncheckedIOException("embedded vector store: cannot write " + file, e);
    }
  }
}
