/**
 * Where records wait: the {@link dev.memstack.outbox.journal.Journal} interface, the {@link
 * dev.memstack.outbox.journal.FileJournal} (segment files and cursor files, survives a crash), the
 * {@link dev.memstack.outbox.journal.MemoryJournal}, and {@link
 * dev.memstack.outbox.journal.SharedJournal} for journals several hosts share. Every journal passes
 * {@code JournalConformance} from this module's test-jar.
 */
package dev.memstack.outbox.journal;
