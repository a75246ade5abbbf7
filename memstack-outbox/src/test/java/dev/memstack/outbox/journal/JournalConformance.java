package dev.memstack.outbox.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.outbox.journal.CursorStore.ParkedErase;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link Journal}, which every journal passes: extend it, say how to open (and
 * reopen) the journal under test and whether it survives a restart. A {@link SharedJournal} passes
 * it unchanged as the only writer, and also the test of a second writer (a second host) on the same
 * storage, which local journals skip. Ships in the {@code memstack-outbox} test-jar: a new
 * journal's test extends it.
 */
public abstract class JournalConformance {

  private static final Instant ACCEPTED = Instant.parse("2026-03-02T10:00:00Z");

  private final List<Journal> opened = new ArrayList<>();

  /** A new empty journal, or the same storage again after {@link Journal#close()} of the last. */
  protected abstract Journal openJournal() throws IOException;

  /**
   * Every byte the journal keeps in files, to grep for erased text; empty for a journal that keeps
   * nothing in files.
   */
  protected Optional<byte[]> storedBytes() throws IOException {
    return Optional.empty();
  }

  private Journal open() throws IOException {
    Journal journal = openJournal();
    opened.add(journal);
    return journal;
  }

  @AfterEach
  protected void closeAll() {
    opened.forEach(Journal::close);
  }

  /** A turn of {@code owner} with fixed text and time. */
  protected static Turn turn(String turnId, String owner) {
    return new Turn(
        turnId,
        AgentId.of("agent-1"),
        OwnerKey.of(owner),
        "conversation-1",
        "user says " + turnId,
        "agent answers " + turnId,
        TriggerSource.API,
        Instant.parse("2026-03-02T10:15:30.123456789Z"));
  }

  protected static JournalRecord turnRecord(String turnId, String owner, String... recipients) {
    return JournalRecord.turn(turn(turnId, owner), ACCEPTED, List.of(recipients));
  }

  protected static Journal.Entry append(Journal journal, JournalRecord record) throws IOException {
    JournalRecord.Header header = record.header();
    Journal.Entry entry = journal.append(header, record.encode());
    journal.awaitDurable(entry.position());
    return entry;
  }

  @Test
  void positionsGrowByOneInAppendOrderAndBecomeDurable() throws IOException {
    Journal journal = open();
    long first = journal.nextPosition();
    for (int i = 0; i < 5; i++) {
      Journal.Entry entry = append(journal, turnRecord("t" + i, "user:1", "a"));
      assertThat(entry.position()).isEqualTo(first + i);
      assertThat(journal.durablePosition()).isGreaterThan(entry.position());
    }
    assertThat(journal.nextPosition()).isEqualTo(first + 5);
  }

  @Test
  void aRecordReadsBackAsItWasAppended() throws IOException {
    Journal journal = open();
    JournalRecord turn = turnRecord("t-ü", "slack:U1", "a", "b");
    JournalRecord erase = JournalRecord.erase(OwnerKey.of("slack:U1"), ACCEPTED, List.of("a"));
    Journal.Entry turnEntry = append(journal, turn);
    Journal.Entry eraseEntry = append(journal, erase);

    assertThat(journal.read(turnEntry)).isEqualTo(turn);
    assertThat(journal.read(eraseEntry)).isEqualTo(erase);
    assertThat(turnEntry.erase()).isFalse();
    assertThat(eraseEntry.erase()).isTrue();
    assertThat(eraseEntry.owner()).isEqualTo("slack:U1");
    assertThat(turnEntry.header().recipients()).containsExactly("a", "b");
    assertThat(turnEntry.acceptedAtMillis()).isEqualTo(ACCEPTED.toEpochMilli());
  }

  @Test
  void concurrentAppendersGetDistinctContiguousPositions() throws Exception {
    Journal journal = open();
    long first = journal.nextPosition();
    Object appendLock = new Object(); // the engine serialises appends; durability is concurrent
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<List<Long>>> results = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      results.add(
          pool.submit(
              () -> {
                List<Long> positions = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                  JournalRecord record = turnRecord("t" + thread + "-" + i, "user:1", "a");
                  Journal.Entry entry;
                  synchronized (appendLock) {
                    entry = journal.append(record.header(), record.encode());
                  }
                  journal.awaitDurable(entry.position());
                  positions.add(entry.position());
                }
                return positions;
              }));
    }
    Set<Long> all = new HashSet<>();
    for (Future<List<Long>> result : results) {
      all.addAll(result.get());
    }
    pool.shutdown();
    assertThat(all).hasSize(200);
    assertThat(all.stream().mapToLong(Long::longValue).min().orElseThrow()).isEqualTo(first);
    assertThat(all.stream().mapToLong(Long::longValue).max().orElseThrow()).isEqualTo(first + 199);
    assertThat(journal.durablePosition()).isEqualTo(first + 200);
  }

  @Test
  void compactingFreesStorageAndKeepsWhatIsAfter() throws IOException {
    Journal journal = open();
    List<Journal.Entry> entries = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      entries.add(append(journal, turnRecord("t" + i, "user:1", "a")));
    }
    long before = journal.bytes();
    assertThat(before).isPositive();

    journal.compact(entries.get(entries.size() - 1).position());

    assertThat(journal.bytes()).isLessThan(before);
    Journal.Entry last = entries.get(entries.size() - 1);
    assertThat(journal.read(last).turn().turnId()).isEqualTo("t299");
    assertThat(journal.nextPosition()).isEqualTo(last.position() + 1);
  }

  @Test
  void aClosedJournalRefusesAppendsAndCursorSaves() throws IOException {
    Journal journal = open();
    journal.close();
    JournalRecord record = turnRecord("t1", "user:1", "a");
    assertThatThrownBy(() -> append(journal, record)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> journal.saveCursor("a", new Journal.Cursor(0, List.of())))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void everyLaneMayBeLeasedByALocalJournal() throws IOException {
    Journal journal = open();
    assertThat(journal.tryLease("a")).isTrue();
    assertThat(journal.tryLease("b")).isTrue();
  }

  @Test
  void aSharedLaneIsLeasedByOneHostAtATimeAndEveryHostReadsEveryRecord() throws IOException {
    Journal first = open();
    Assumptions.assumeTrue(
        first instanceof SharedJournal, "only a shared journal has a second writer at once");
    Journal second = open();
    assertThat(first.tryLease("a#0")).isTrue();
    assertThat(second.tryLease("a#0")).isFalse();
    assertThat(second.tryLease("a#1")).isTrue();
    assertThat(first.tryLease("a#0")).isTrue();
    assertThatThrownBy(() -> second.saveCursor("a#0", new Journal.Cursor(1, List.of())))
        .isInstanceOf(IOException.class);
    first.saveCursor("a#0", new Journal.Cursor(1, List.of()));

    Journal.Entry one = append(first, turnRecord("t1", "user:1", "a"));
    Journal.Entry two = append(second, turnRecord("t2", "user:1", "a"));
    assertThat(two.position()).isGreaterThan(one.position());
    assertThat(second.read(one).turn().turnId()).isEqualTo("t1");
    assertThat(first.read(two).turn().turnId()).isEqualTo("t2");

    first.close();
    assertThat(second.tryLease("a#0")).as("a closed host gives its lanes up").isTrue();
    assertThat(second.cursors().get("a#0")).isEqualTo(new Journal.Cursor(1, List.of()));
  }

  @Test
  void recordsAndCursorsSurviveAReopenWhenTheJournalIsPersistent() throws IOException {
    Journal journal = open();
    boolean persistent = journal.persistent();
    List<Journal.Entry> entries = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      entries.add(append(journal, turnRecord("t" + i, "user:" + i, "a", "b")));
    }
    Journal.Cursor cursor =
        new Journal.Cursor(
            entries.get(1).position(), List.of(new ParkedErase("user:9", 1_700_000_000_000L)));
    journal.saveCursor("a", cursor);
    journal.close();

    Journal again = open();
    List<Journal.Entry> replayed = new ArrayList<>();
    again.replay(replayed::add);
    Map<String, Journal.Cursor> cursors = again.cursors();
    if (!persistent) {
      assertThat(replayed).isEmpty();
      assertThat(cursors).isEmpty();
      return;
    }
    assertThat(cursors).containsEntry("a", cursor);
    assertThat(replayed)
        .extracting(Journal.Entry::position)
        .containsSubsequence(entries.stream().map(Journal.Entry::position).toList());
    Journal.Entry kept = replayed.get(replayed.size() - 1);
    assertThat(again.read(kept).turn().turnId()).isEqualTo("t2");
    assertThat(again.nextPosition()).isGreaterThan(entries.get(2).position());
    Journal.Entry next = append(again, turnRecord("t3", "user:1", "a"));
    assertThat(next.position()).isGreaterThan(entries.get(2).position());
  }

  @Test
  void deadLettersAreKeptUntilDeletedOrTheirOwnerIsErasedAndSurviveAReopen() throws IOException {
    Journal journal = open();
    boolean persistent = journal.persistent();
    DeadLetterStore store = journal.deadLetters();
    JournalRecord one = turnRecord("dl-1", "user:1", "a");
    JournalRecord two = turnRecord("dl-2", "user:2", "a", "b");
    DeadLetter first = letter(7, "a", one, ACCEPTED.plusSeconds(1));
    DeadLetter second = letter(8, "b", two, ACCEPTED.plusSeconds(2));
    DeadLetter third = letter(9, "a", two, ACCEPTED.plusSeconds(3));
    store.put(second, two.encode());
    store.put(first, one.encode());
    store.put(third, two.encode());
    store.put(first, one.encode()); // the same id again replaces it

    assertThat(store.list()).containsExactly(first, second, third);
    assertThat(JournalRecord.decode(java.nio.ByteBuffer.wrap(store.record("7.a").orElseThrow())))
        .isEqualTo(one);
    assertThat(store.record("../7.a")).as("not an id").isEmpty();
    assertThat(store.record("6.a")).isEmpty();
    assertThat(store.remove("8.b")).isTrue();
    assertThat(store.remove("8.b")).isFalse();
    assertThat(store.remove("../../lock")).isFalse();
    journal.close();

    DeadLetterStore again = open().deadLetters();
    if (!persistent) {
      assertThat(again.list()).isEmpty();
      return;
    }
    assertThat(again.list()).containsExactly(first, third);
    assertThat(again.removeOwner("user:2")).isEqualTo(1);
    assertThat(again.list()).containsExactly(first);
    assertThat(again.record("9.a")).isEmpty();
  }

  private static DeadLetter letter(
      long position, String provider, JournalRecord record, Instant parkedAt) {
    Turn turn = record.turn();
    return new DeadLetter(
        DeadLetter.idOf(position, provider),
        provider,
        position,
        turn.owner().value(),
        turn.agent().value(),
        turn.conversationId(),
        turn.turnId(),
        ACCEPTED,
        parkedAt,
        3,
        DeadLetter.FAILING,
        "java.lang.IllegalStateException: cannot store");
  }

  @Test
  void anErasedOwnersTurnsLeaveNoTraceAndEverythingElseStays() throws IOException {
    Journal journal = open();
    boolean persistent = journal.persistent();
    String secret = "gone-" + UUID.randomUUID();
    String kept = "kept-" + UUID.randomUUID();
    List<Journal.Entry> erased = new ArrayList<>();
    List<Journal.Entry> others = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      erased.add(append(journal, turnRecord(secret + "-" + i, "user:gone", "a", "b")));
      others.add(append(journal, turnRecord(kept + "-" + i, "user:kept", "a", "b")));
    }
    JournalRecord eraseRecord =
        JournalRecord.erase(OwnerKey.of("user:gone"), ACCEPTED, List.of("a", "b"));
    Journal.Entry erase = append(journal, eraseRecord);
    JournalRecord afterwards = turnRecord(secret + "-new", "user:gone", "a");
    Journal.Entry later = append(journal, afterwards);

    assertThat(journal.expunge("user:gone", erase.position())).isEqualTo(40);

    for (Journal.Entry entry : erased) {
      assertThatThrownBy(() -> journal.read(entry)).isInstanceOf(ErasedRecordException.class);
    }
    for (int i = 0; i < others.size(); i++) {
      assertThat(journal.read(others.get(i)).turn().turnId()).isEqualTo(kept + "-" + i);
    }
    assertThat(journal.read(erase)).isEqualTo(eraseRecord);
    assertThat(journal.read(later)).isEqualTo(afterwards);
    assertThat(journal.expunge("user:gone", erase.position())).isZero();
    Optional<byte[]> stored = storedBytes();
    if (stored.isPresent()) {
      String bytes = new String(stored.get(), StandardCharsets.ISO_8859_1);
      assertThat(bytes).doesNotContain(secret + "-1").contains(kept + "-1", secret + "-new");
    }
    Journal.Entry next = append(journal, turnRecord("t-next", "user:kept", "a"));
    assertThat(next.position()).isEqualTo(later.position() + 1);
    journal.close();
    if (!persistent) {
      return;
    }

    Journal again = open();
    List<Journal.Entry> replayed = new ArrayList<>();
    again.replay(replayed::add);
    List<Long> erasedPositions = erased.stream().map(Journal.Entry::position).toList();
    assertThat(replayed)
        .extracting(Journal.Entry::position)
        .doesNotContainAnyElementsOf(erasedPositions);
    assertThat(replayed)
        .extracting(Journal.Entry::position)
        .containsAll(others.stream().map(Journal.Entry::position).toList())
        .contains(erase.position(), later.position(), next.position());
    for (Journal.Entry entry : replayed) {
      if (entry.position() == others.get(39).position()) {
        assertThat(again.read(entry).turn().turnId()).isEqualTo(kept + "-39");
      }
    }
    assertThat(again.nextPosition()).isEqualTo(next.position() + 1);
  }
}
