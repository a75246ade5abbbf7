package dev.memstack.outbox.journal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery cursors, one small text file per provider id in {@code <outbox>/cursors/}: the
 * journal position before which everything addressed to the provider is done, and the erasures
 * taken out of the journal that still wait for the provider. A file is replaced atomically (written
 * to a temporary file, forced, renamed over the old one, folder forced), so it is always either the
 * old or the new state. Not thread-safe per provider id; callers serialise saves of one id.
 */
public final class CursorStore {

  private static final Logger log = LoggerFactory.getLogger(CursorStore.class);

  private static final String HEADER = "memstack-outbox-cursor 1";
  private static final String SUFFIX = ".cursor";
  private static final Pattern PLAIN_ID = Pattern.compile("[A-Za-z0-9._-]{1,100}");

  /** An erasure that waits for a provider outside the journal. */
  public record ParkedErase(String owner, long acceptedAtMillis) {
    public ParkedErase {
      Objects.requireNonNull(owner, "owner");
    }
  }

  private final Path dir;
  private final boolean fsync;

  CursorStore(Path dir, boolean fsync) throws IOException {
    this.dir = Files.createDirectories(dir);
    this.fsync = fsync;
  }

  /** Every saved cursor by provider id; an unreadable file is logged and left out. */
  Map<String, Journal.Cursor> loadAll() throws IOException {
    Map<String, Journal.Cursor> cursors = new LinkedHashMap<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.endsWith(".tmp")) {
          Files.deleteIfExists(file);
          continue;
        }
        if (!name.endsWith(SUFFIX)) {
          continue;
        }
        try {
          parse(Files.readAllLines(file, StandardCharsets.UTF_8), cursors);
        } catch (RuntimeException e) {
          log.warn(
              "Ignoring the unreadable outbox cursor {} ({}); its provider receives the journal"
                  + " again from the start",
              file,
              e.getMessage());
        }
      }
    }
    return cursors;
  }

  /** Replaces the saved state of {@code providerId}. */
  void save(String providerId, Journal.Cursor saved) throws IOException {
    StringBuilder text = new StringBuilder(64 + saved.parked().size() * 40);
    text.append(HEADER).append('\n');
    text.append("provider ").append(providerId).append('\n');
    text.append("next ").append(saved.next()).append('\n');
    for (ParkedErase erase : saved.parked()) {
      text.append("erase ")
          .append(erase.acceptedAtMillis())
          .append(' ')
          .append(erase.owner())
          .append('\n');
    }
    AtomicWrite.replace(
        dir, fileName(providerId), text.toString().getBytes(StandardCharsets.UTF_8), fsync);
  }

  private static void parse(List<String> lines, Map<String, Journal.Cursor> into) {
    if (lines.size() < 3 || !lines.get(0).equals(HEADER)) {
      throw new IllegalArgumentException("not a cursor file");
    }
    if (!lines.get(1).startsWith("provider ") || !lines.get(2).startsWith("next ")) {
      throw new IllegalArgumentException("provider and next lines expected");
    }
    String providerId = lines.get(1).substring("provider ".length());
    long next = Long.parseLong(lines.get(2).substring("next ".length()).trim());
    if (next < 0) {
      throw new IllegalArgumentException("negative position");
    }
    List<ParkedErase> parked = new ArrayList<>();
    for (String line : lines.subList(3, lines.size())) {
      if (line.isBlank()) {
        continue;
      }
      String[] parts = line.split(" ", 3);
      if (parts.length != 3 || !parts[0].equals("erase")) {
        throw new IllegalArgumentException("unexpected line: " + line);
      }
      parked.add(new ParkedErase(parts[2], Long.parseLong(parts[1])));
    }
    into.put(providerId, new Journal.Cursor(next, parked));
  }

  private static String fileName(String providerId) {
    if (PLAIN_ID.matcher(providerId).matches()) {
      return providerId + SUFFIX;
    }
    return "id-" + HexFormat.of().formatHex(providerId.getBytes(StandardCharsets.UTF_8)) + SUFFIX;
  }
}
