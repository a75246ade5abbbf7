package dev.memstack.host.outbox;

import static dev.memstack.host.outbox.Turns.eventually;
import static dev.memstack.host.outbox.Turns.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.OwnerErasure;
import dev.memstack.outbox.journal.FileJournal;
import dev.memstack.outbox.journal.SegmentExpunger;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An owner erasure takes the owner's turns out of the journal's files at once, even while they
 * still wait for a provider that is not running, and a restart delivers only what is left.
 */
class OutboxErasureOnDiskTest {

  private static final Duration PATIENCE = Duration.ofSeconds(10);

  @TempDir Path dir;

  private final TestMembers members = new TestMembers();

  private OutboxEngine open() {
    OutboxSettings settings =
        OutboxSettingsBuilder.from(Turns.fastRetry(OutboxSettings.defaults()))
            .eraseWait(Duration.ofMillis(200))
            .build();
    return OutboxEngine.onDisk(dir, settings, Turns.port(members));
  }

  @Test
  void anErasureRewritesTheOwnersPendingTurnsOutOfTheJournalFiles() {
    String gone = "gone-" + UUID.randomUUID();
    String kept = "kept-" + UUID.randomUUID();
    List<String> keptIds = new ArrayList<>();
    members.stop("a"); // configured, not running: everything waits in the journal
    OutboxEngine engine = open();
    for (int i = 0; i < 30; i++) {
      engine.enqueue(turn(gone + "-" + i, "user:gone"), List.of("a"));
      engine.enqueue(turn(kept + "-" + i, "user:kept"), List.of("a"));
      keptIds.add(kept + "-" + i);
    }
    assertThat(journalBytes()).contains(gone + "-7");

    OwnerErasure erasure = engine.erase(OwnerKey.of("user:gone"));

    assertThat(erasure.providers())
        .singleElement()
        .satisfies(outcome -> assertThat(outcome.droppedPending()).isEqualTo(30));
    assertThat(journalBytes()).doesNotContain(gone).contains(kept + "-7");
    engine.close();

    RecordingProvider a = new RecordingProvider("a");
    members.run(a);
    OutboxEngine again = open();
    try {
      eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactlyElementsOf(keptIds));
      eventually(PATIENCE, () -> assertThat(a.events).contains("forget:user:gone"));
      assertThat(a.received).noneMatch(id -> id.startsWith(gone));
    } finally {
      again.close();
    }
  }

  @Test
  void aCopyLeftByAnErasureCutShortIsDeletedAtOpen() throws IOException {
    Path leftover = dir.resolve("00000000000000000000.seg" + SegmentExpunger.TEMP_SUFFIX);
    Files.writeString(leftover, "an erased owner's words");

    FileJournal.open(dir, 4096, true).close();

    assertThat(leftover).doesNotExist();
  }

  /** Every file of the journal folder, byte for byte as Latin-1 text. */
  private String journalBytes() {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        all.append(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all.toString();
  }
}
