package dev.memstack.mem0;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The ids of the turns already handed to Mem0, so that a turn the host delivers twice becomes one
 * memory. Kept in memory (the most recent {@code capacity} ids) and appended to {@code
 * sent-turns.log} in the instance's data directory, one id per line, so the guarantee survives a
 * restart; the file is compacted when it grows to twice the capacity. Thread-safe.
 */
final class SentTurnLog {

  static final String FILE_NAME = "sent-turns.log";

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

  synchronized boolean contains(String turnId) {
    return ids.contains(turnId);
  }

  /** Records a handled turn; an I/O failure is thrown so the host retries the turn. */
  synchronized void add(String turnId) {
    if (!remember(turnId)) {
      return;
    }
    try {
      Files.writeString(
          file,
          turnId + "\n",
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
    Path temp = file.resolveSibling(FILE_NAME + ".tmp");
    List<String> lines = new ArrayList<>(ids);
    Files.write(temp, lines, StandardCharsets.UTF_8);
    Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    linesInFile = lines.size();
  }
}
