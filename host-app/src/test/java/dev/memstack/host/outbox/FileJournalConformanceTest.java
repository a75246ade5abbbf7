package dev.memstack.host.outbox;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The file journal passes the journal contract (small segments, so compaction has work). */
class FileJournalConformanceTest extends JournalConformance {

  @TempDir Path dir;

  @Override
  protected Journal openJournal() {
    return FileJournal.open(dir, 4096, true);
  }
}
