package dev.memstack.host.outbox;

/** The memory journal passes the journal contract; a reopen starts empty. */
class MemoryJournalConformanceTest extends JournalConformance {

  @Override
  protected Journal openJournal() {
    return new MemoryJournal();
  }
}
