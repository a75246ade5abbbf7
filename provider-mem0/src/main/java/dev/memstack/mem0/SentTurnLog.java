package dev.memstack.mem0;

import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The turns already handed to Mem0, so that a turn the host delivers twice becomes one memory. A
 * turn is named by its agent, owner and turn id (a turn id is unique only per agent and owner: the
 * same id from two owners is two turns). Kept in memory (the most recent {@code capacity} turns)
 * and appended to {@code sent-turns.log} in the instance's data directory, one turn per line
 * ({@code agent<TAB>owner<TAB>turnId}), so the guarantee survives a restart; the file is compacted
 * when it grows to twice the capacity.
 *
 * <p>A log written before 0.2.0 holds bare turn ids (lines without a tab). Such a line still counts
 * as sent for that turn id of any agent and owner: after an upgrade a turn redelivered from before
 * it is not sent twice, at the cost that, until the old line ages out of the capacity, another
 * owner's turn of the same id is skipped as before. Thread-safe.
 */
final class SentTurnLog {

  static final String FILE_NAME = "sent-turns.log";

  private static final String FIELD = "\t";

  private final Path file;
  private final int capacity;
  private final LinkedHashSet<String> ids = new LinkedHashSet<>();
  private int linesInFile;

  private SentTurnLog(Path file, int capacity) {
    this.file = file;
    this.capacity = capacity;
  }

  /** Opens (or starts) the log in {@code directory}. */
  static SentTurnLog open(Path directory, int capacity) {
    SentTurnLog log = new SentTurnLog(directory.resolve(FILE_NAME), capacity);
    try {
      Files.createDirectories(directory);
      AtomicFiles.deleteLeftovers(log.file);
      if (Files.exists(log.file)) {
        for (String line : Files.readAllLines(log.file, StandardCharsets.UTF_8)) {
          if (!line.isBlank()) {
            log.remember(line.strip());
            log.linesInFile++;
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + log.file, e);
    }
    return log;
  }

  /** Whether {@code turn} (its agent, owner and id) was sent already. */
  synchronized boolean contains(Turn turn) {
    return ids.contains(key(turn)) || ids.contains(turn.turnId());
  }

  /** Records a handled turn; an I/O failure is thrown so the host retries the turn. */
  synchronized void add(Turn turn) {
    String key = key(turn);
    if (!remember(key)) {
      return;
    }
    try {
      Files.writeString(
          file,
          key + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      linesInFile++;
      if (linesInFile > 2 * capacity) {
        compact();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  synchronized int size() {
    return ids.size();
  }

  /**
   * Drops the lines of {@code owner}'s turns, from memory and from the file (rewritten), when the
   * owner is forgotten; returns how many.
   */
  synchronized int removeOwner(OwnerKey owner) {
    String infix = FIELD + owner.value() + FIELD;
    int before = ids.size();
    ids.removeIf(key -> key.contains(infix));
    int removed = before - ids.size();
    if (removed > 0) {
      try {
        compact();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + file, e);
      }
    }
    return removed;
  }

  /** The line of a turn: agent, owner and turn id, tab-separated (none of them holds a tab). */
  static String key(Turn turn) {
    return turn.agent().value() + FIELD + turn.owner().value() + FIELD + turn.turnId();
  }

  private boolean remember(String turnId) {
    if (!ids.add(turnId)) {
      return false;
    }
    if (ids.size() > capacity) {
      Iterator<String> oldest = ids.iterator();
      oldest.next();
      oldest.remove();
    }
    return true;
  }

  private void compact() throws IOException {
    List<String> lines = new ArrayList<>(ids);
    AtomicFiles.writeLines(file, lines);
    linesInFile = lines.size();
  }
}
