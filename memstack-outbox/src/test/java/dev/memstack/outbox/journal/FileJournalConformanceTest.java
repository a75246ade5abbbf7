package dev.memstack.outbox.journal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file journal passes the journal contract (small segments, so compaction and erasure have
 * work; erasure is checked in the bytes of every file).
 */
class FileJournalConformanceTest extends JournalConformance {

  @TempDir Path dir;

  @Override
  protected Journal openJournal() {
    return FileJournal.open(dir, 4096, true);
  }

  @Override
  protected Optional<byte[]> storedBytes() throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        all.write(Files.readAllBytes(file));
      }
    }
    return Optional.of(all.toByteArray());
  }
}
