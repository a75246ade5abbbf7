package dev.memstack.host.outbox;

import static dev.memstack.host.outbox.Turns.eventually;
import static dev.memstack.host.outbox.Turns.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.journal.DeadLetter;
import dev.memstack.outbox.journal.FileJournal;
import dev.memstack.outbox.journal.Journal;
import dev.memstack.outbox.journal.JournalRecord;
import dev.memstack.outbox.postgres.PostgresJournal;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No record can stall a lane, on the file journal and on PostgreSQL: 1,000 turns of 50 owners, of
 * which the provider rejects one for good, behind a record planted in the journal's storage that
 * the codec cannot read, with an outage of the provider in the middle that lasts longer than {@code
 * max-attempts} retries take. The other 999 turns arrive within 60 s of the last accept, the
 * rejected one is the only dead letter: the outage parked nothing.
 */
class StallProofTest {

  private static final int OWNERS = 50;
  private static final int TURNS = 1_000;
  private static final String REJECTED = "turn-17-9";
  private static final Duration OUTAGE = Duration.ofSeconds(3);

  @TempDir Path dir;

  private final List<AutoCloseable> opened = new ArrayList<>();
  private SharedOutboxDatabase database;

  @AfterEach
  void closeAll() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    if (database != null) {
      database.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "postgres"})
  void oneRejectedTurnAndOneUnreadableRecordStallNothingAndAnOutageParksNothing(String type)
      throws Exception {
    RecordingProvider provider = new RecordingProvider("a");
    provider.batches = true;
    provider.rejected.add(REJECTED);
    TestMembers members = new TestMembers().run(provider);
    OutboxSettings settings =
        OutboxSettingsBuilder.defaults()
            .initialBackoff(Duration.ofMillis(20))
            .maxBackoff(Duration.ofMillis(200))
            .shutdownGrace(Duration.ZERO)
            .maxAttempts(3)
            .shards(4)
            .build();
    OutboxEngine engine = open(type, settings, members);

    List<Turn> turns = new ArrayList<>();
    for (int i = 0; i < TURNS; i++) {
      turns.add(turn("turn-" + (i % OWNERS) + "-" + (i / OWNERS), "user:" + (i % OWNERS)));
    }
    Instant lastAccept = null;
    long attemptsBefore = 0;
    long outageEnds = 0;
    for (int i = 0; i < TURNS; i++) {
      if (i == TURNS / 2) {
        provider.failing = true; // the backend goes away: every call fails, counted
        attemptsBefore = engine.stats().get("a").failedAttempts();
        outageEnds = System.nanoTime() + OUTAGE.toNanos();
      }
      if (i == TURNS / 2 + 100) { // turns keep coming while it is away; then it stays away a while
        Thread.sleep(Math.max(0, (outageEnds - System.nanoTime()) / 1_000_000));
        assertThat(engine.stats().get("a").failedAttempts() - attemptsBefore)
            .as("the outage lasted longer than max-attempts retries take")
            .isGreaterThan(2L * settings.maxAttempts());
        provider.failing = false;
      }
      engine.enqueue(turns.get(i), List.of("a"));
      lastAccept = Instant.now();
    }

    Set<String> expected = new HashSet<>();
    turns.stream().map(Turn::turnId).filter(id -> !id.equals(REJECTED)).forEach(expected::add);
    Instant accepted = lastAccept;
    eventually(
        Duration.ofSeconds(60),
        () ->
            assertThat(new HashSet<>(provider.storedIds()))
                .as("every other turn arrived within 60 s of the last accept (%s)", accepted)
                .isEqualTo(expected));
    assertThat(engine.deadLetters().list(null))
        .as("the rejected turn is the only dead letter: the outage parked nothing")
        .singleElement()
        .satisfies(
            letter -> {
              assertThat(letter.turnId()).isEqualTo(REJECTED);
              assertThat(letter.reason()).isEqualTo(DeadLetter.REJECTED);
            });
  }

  /**
   * An engine over a journal holding, below everything else, a record with a valid index and a body
   * the codec cannot read.
   */
  private OutboxEngine open(String type, OutboxSettings settings, TestMembers members)
      throws IOException {
    JournalRecord planted =
        JournalRecord.turn(turn("planted", "user:0"), Instant.now(), List.of("a"));
    byte[] garbage = "not a journal record at all".getBytes(StandardCharsets.UTF_8);
    Journal journal;
    if (type.equals("journal")) {
      try (FileJournal raw = FileJournal.open(dir, settings.segmentSizeBytes(), true)) {
        raw.awaitDurable(raw.append(planted.header(), garbage).position());
      }
      journal = FileJournal.open(dir, settings.segmentSizeBytes(), true);
    } else {
      database = SharedOutboxDatabase.create();
      SharedStore store = database.store();
      opened.add(store);
      journal = PostgresJournal.open(store, settings.shards(), settings.leaseTtl());
      journal.awaitDurable(journal.append(planted.header(), garbage).position());
    }
    OutboxEngine engine = OutboxEngine.start(journal, settings, Turns.port(members));
    opened.add(engine);
    return engine;
  }
}
