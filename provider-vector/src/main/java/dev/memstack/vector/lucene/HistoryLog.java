package dev.memstack.vector.lucene;

import dev.memstack.spi.OwnerKey;
import dev.memstack.support.AtomicFiles;
import dev.memstack.vector.store.HistoryEvent;
import dev.memstack.vector.store.MemoryHistory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The embedded store's {@link MemoryHistory}: {@code <root>/history.jsonl}, one event a line,
 * appended and forced to disk before a change returns, and held in memory by memory id. A forget or
 * an owner's erasure rewrites the file without the removed events (atomically: a temporary file
 * moved over it), so that no removed text stays on disk; a line cut short by a crash was never
 * acknowledged and is skipped on open.
 */
final class HistoryLog implements MemoryHistory, AutoCloseable {

  static final String FILE = "history.jsonl";

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<Map<String, Object>> LINE = new TypeReference<>() {};

  private final Path file;
  private final Map<String, List<HistoryEvent>> byId = new HashMap<>();
  private FileChannel channel;

  private HistoryLog(Path file) {
    this.file = file;
  }

  /** Replays the file under {@code root} (created when missing) and opens it for appending. */
  static HistoryLog open(Path root) throws IOException {
    HistoryLog log = new HistoryLog(root.resolve(FILE));
    AtomicFiles.deleteLeftovers(log.file);
    for (Map<String, Object> line : JsonLines.read(log.file, LINE)) {
      try {
        HistoryEvent event = HistoryEvent.fromMap(line);
        log.byId.computeIfAbsent(event.id(), id -> new ArrayList<>()).add(event);
      } catch (RuntimeException e) {
        // a line this version cannot read: left out, as a cut line is
      }
    }
    log.rewrite();
    return log;
  }

  @Override
  public synchronized void append(HistoryEvent event) {
    write(event);
    byId.computeIfAbsent(event.id(), id -> new ArrayList<>()).add(event);
  }

  @Override
  public synchronized List<HistoryEvent> of(String id) {
    return List.copyOf(byId.getOrDefault(id, List.of()));
  }

  @Override
  public synchronized void forget(HistoryEvent forgotten) {
    List<HistoryEvent> earlier = byId.put(forgotten.id(), new ArrayList<>(List.of(forgotten)));
    if (earlier == null || earlier.isEmpty()) {
      write(forgotten);
    } else {
      rewrite();
    }
  }

  @Override
  public synchronized long deleteOwner(OwnerKey owner) {
    long removed = 0;
    for (var it = byId.values().iterator(); it.hasNext(); ) {
      List<HistoryEvent> events = it.next();
      int before = events.size();
      events.removeIf(e -> owner.equals(e.owner()));
      removed += before - events.size();
      if (events.isEmpty()) {
        it.remove();
      }
    }
    if (removed > 0) {
      rewrite();
    }
    return removed;
  }

  /**
   * Writes the file anew from memory and reopens it for appending.
   *
   * @throws UncheckedIOException when the file cannot be written
   */
  private void rewrite() {
    List<String> lines = new ArrayList<>();
    for (List<HistoryEvent> events : byId.values()) {
      for (HistoryEvent event : events) {
        lines.add(JSON.writeValueAsString(event.toMap()));
      }
    }
    try {
      if (channel != null) {
        channel.close();
      }
      AtomicFiles.writeLines(file, lines);
      channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("embedded vector store: cannot rewrite " + file, e);
    }
  }

  /**
   * Appends one event and forces it to disk.
   *
   * @throws UncheckedIOException when the file cannot be written
   */
  private void write(HistoryEvent event) {
    ByteBuffer buffer =
        ByteBuffer.wrap(
            (JSON.writeValueAsString(event.toMap()) + "\n").getBytes(StandardCharsets.UTF_8));
    try {
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      channel.force(false);
    } catch (IOException e) {
      throw new UncheckedIOException("embedded vector store: cannot write " + file, e);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    if (channel != null) {
      channel.close();
    }
  }
}
