package dev.memstack.outbox.journal;

/** The memory journal passes the journal contract; a reopen starts empty. */
class MemoryJournalConformanceTest extends JournalConformance {

  @Override
  protected Journal openJournal() {
    return new MemoryJournal();
  }
}
