package dev.memstack.outbox.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentLogTest {

  private static final long SEGMENT = 64 * 1024;

  @TempDir Path dir;

  private final List<Long> positions = new ArrayList<>();
  private final List<JournalRecord> replayed = new ArrayList<>();

  private SegmentLog open(long segmentSize) throws IOException {
    positions.clear();
    replayed.clear();
    return SegmentLog.open(
        dir,
        segmentSize,
        true,
        0,
        (position, at, body) -> {
          positions.add(position);
          try {
            replayed.add(JournalRecord.decode(body));
          } catch (CorruptRecordException e) {
            throw new AssertionError(e);
          }
        });
  }

  /** Writes the records t0, t1, ... ({@code count} of them) to a new journal and closes it. */
  private void writeRecords(int count) throws IOException {
    try (SegmentLog journal = open(SEGMENT)) {
      for (int i = 0; i < count; i++) {
        append(journal, record("t" + i));
      }
    }
  }

  private static long append(SegmentLog journal, JournalRecord record) throws IOException {
    long position = journal.append(record.encode()).position();
    journal.awaitDurable(position);
    return position;
  }

  private static JournalRecord record(String turnId) {
    return JournalRecord.turn(
        JournalConformance.turn(turnId, "user:1"),
        Instant.parse("2026-03-02T10:00:00Z"),
        List.of("a", "b"));
  }

  @Test
  void recordsComeBackExactlyAsWrittenAfterAReopen() throws IOException {
    Turn unusual =
        new Turn(
            "t-ü",
            AgentId.of("agent_2"),
            OwnerKey.of("slack:U123"),
            "c-2",
            "emoji 🧠 and\nnew lines\u0000? no: " + "x".repeat(70_000),
            "",
            TriggerSource.CHANNEL,
            Instant.parse("1999-12-31T23:59:59.999999999Z"));
    JournalRecord turnRecord =
        JournalRecord.turn(unusual, Instant.parse("2026-03-02T10:00:00.5Z"), List.of("builtin"));
    JournalRecord eraseRecord =
        JournalRecord.erase(
            OwnerKey.of("api:42"), Instant.parse("2026-03-02T11:00:00Z"), List.of("x", "y"));
    try (SegmentLog journal = open(SEGMENT)) {
      assertThat(append(journal, turnRecord)).isZero();
      assertThat(append(journal, eraseRecord)).isEqualTo(1);
    }

    try (SegmentLog journal = open(SEGMENT)) {
      assertThat(positions).containsExactly(0L, 1L);
      assertThat(replayed).containsExactly(turnRecord, eraseRecord);
      assertThat(journal.nextPosition()).isEqualTo(2);
      assertThat(append(journal, record("t3"))).isEqualTo(2);
    }
  }

  @Test
  void aTornRecordAtTheEndIsCutOffAndTheJournalGoesOnFromThere() throws IOException {
    writeRecords(5);
    Path last = newestSegment();
    long goodSize = Files.size(last);
    // a crash in the middle of the next write: its header and half its body
    byte[] body = record("t5").encode();
    ByteBuffer frame = ByteBuffer.allocate(SegmentFrames.FRAME_HEADER_BYTES + body.length / 2);
    frame.putInt(body.length).putInt(SegmentFrames.crc(ByteBuffer.wrap(body))).putLong(5);
    frame.put(body, 0, body.length / 2).flip();
    try (FileChannel channel = FileChannel.open(last, StandardOpenOption.APPEND)) {
      channel.write(frame);
    }

    try (SegmentLog journal = open(SEGMENT)) {
      assertThat(positions).containsExactly(0L, 1L, 2L, 3L, 4L);
      assertThat(Files.size(last)).isEqualTo(goodSize);
      assertThat(append(journal, record("t5"))).isEqualTo(5);
    }
    try (SegmentLog journal = open(SEGMENT)) {
      assertThat(replayed).extracting(r -> r.turn().turnId()).endsWith("t4", "t5");
      assertThat(positions).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
    }
  }

  @Test
  void aLastRecordWithAWrongChecksumIsCutOff() throws IOException {
    writeRecords(3);
    Path last = newestSegment();
    long size = Files.size(last);
    try (FileChannel channel = FileChannel.open(last, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(new byte[] {(byte) 0x5A}), size - 3);
    }

    try (SegmentLog journal = open(SEGMENT)) {
      assertThat(positions).containsExactly(0L, 1L);
      assertThat(Files.size(last)).isLessThan(size);
    }
  }

  @Test
  void zerosAfterTheLastRecordAreCutOffToo() throws IOException {
    try (SegmentLog journal = open(SEGMENT)) {
      append(journal, record("t0"));
    }
    Path last = newestSegment();
    long size = Files.size(last);
    try (FileChannel channel = FileChannel.open(last, StandardOpenOption.APPEND)) {
      channel.write(ByteBuffer.allocate(4096));
    }
    try (SegmentLog journal = open(SEGMENT)) {
      assertThat(positions).containsExactly(0L);
      assertThat(Files.size(last)).isEqualTo(size);
    }
  }

  @Test
  void fullSegmentsRollOverAndAreDeletedOnlyWhenEveryReaderIsPastThem() throws IOException {
    try (SegmentLog journal = open(4096)) {
      for (int i = 0; i < 200; i++) {
        append(journal, record("t" + i));
      }
      int segments = journal.segments();
      assertThat(segments).isGreaterThan(3);
      assertThat(journal.deleteBefore(0)).isZero();
      assertThat(journal.segments()).isEqualTo(segments);

      int deleted = journal.deleteBefore(100);
      assertThat(deleted).isPositive();
      assertThat(segmentFiles()).hasSize(segments - deleted);

      journal.deleteBefore(Long.MAX_VALUE);
      assertThat(journal.segments()).isEqualTo(1);
      assertThat(segmentFiles()).hasSize(1);
      assertThat(journal.bytes()).isEqualTo(Files.size(segmentFiles().get(0)));
    }
    try (SegmentLog journal = open(4096)) {
      // only the segment that was current is left
      assertThat(positions).isNotEmpty().allSatisfy(p -> assertThat(p).isGreaterThan(100L));
      assertThat(positions.get(positions.size() - 1)).isEqualTo(199L);
      assertThat(journal.nextPosition()).isEqualTo(200);
    }
  }

  @Test
  void aRecordIsReadBackFromItsLocationAndDamageIsDetected() throws IOException {
    List<SegmentLog.Location> locations = new ArrayList<>();
    try (SegmentLog journal = open(SEGMENT)) {
      locations.add(journal.append(record("t0").encode()).at());
      locations.add(journal.append(record("t1").encode()).at());
      assertThat(JournalRecord.decode(journal.read(1, locations.get(1))).turn().turnId())
          .isEqualTo("t1");
      assertThatThrownBy(() -> journal.read(0, locations.get(1)))
          .isInstanceOf(CorruptRecordException.class);
    }
  }

  @Test
  void aFolderWithAForeignFileNamedLikeASegmentIsRefused() throws IOException {
    Files.write(dir.resolve(String.format("%020d.seg", 0)), "not a journal".getBytes());
    assertThatThrownBy(() -> open(SEGMENT))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not a memstack outbox segment");
  }

  private Path newestSegment() throws IOException {
    List<Path> files = segmentFiles();
    // the last segment with records: the newest one is the fresh, empty one started at open
    for (int i = files.size() - 1; i >= 0; i--) {
      if (Files.size(files.get(i)) > SegmentFrames.SEGMENT_HEADER_BYTES) {
        return files.get(i);
      }
    }
    throw new AssertionError("no segment with records");
  }

  private List<Path> segmentFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".seg")).sorted().toList();
    }
  }
}
