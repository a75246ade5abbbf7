package dev.memstack.outbox.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Rewrites one sealed segment of a {@link SegmentLog} without the bodies of some records: each
 * doomed frame becomes a <em>hole</em> of the same size, {@code [-length][CRC-32 of length zero
 * bytes][position][length zero bytes]}, so that every other record keeps its offset (locators held
 * in memory stay valid) and positions stay contiguous. Crash-safe: the new segment is written to
 * {@code <segment>.tmp}, forced, and renamed over the old one, so the file is always either the old
 * or the new segment (a leftover {@code .tmp} is deleted at the next open). Stateless; the caller
 * keeps appends, compaction and other rewrites away from the segment.
 */
public final class SegmentExpunger {

  public static final String TEMP_SUFFIX = ".tmp";

  private SegmentExpunger() {}

  /** The frame of one record as found in a segment. */
  private record Frame(long offset, int length, long position) {}

  /**
   * Replaces by holes the records of {@code segment} before position {@code before} whose body
   * {@code doomed} accepts; leaves the file untouched when there are none.
   *
   * @return how many records were erased
   */
  static int rewrite(Path segment, long before, Predicate<ByteBuffer> doomed, boolean fsync)
      throws IOException {
    List<Frame> frames = doomedFrames(segment, before, doomed);
    if (frames.isEmpty()) {
      return 0;
    }
    Path temporary = segment.resolveSibling(segment.getFileName() + TEMP_SUFFIX);
    Files.copy(segment, temporary, StandardCopyOption.REPLACE_EXISTING);
    try {
      try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
        for (Frame frame : frames) {
          ByteBuffer hole = ByteBuffer.allocate(SegmentFrames.FRAME_HEADER_BYTES + frame.length());
          hole.putInt(-frame.length())
              .putInt(holeCrc(frame.length()))
              .putLong(frame.position())
              .position(0);
          SegmentFrames.writeFully(out, hole, frame.offset());
        }
        out.force(true);
      }
      try {
        Files.move(
            temporary,
            segment,
            StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, segment, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temporary);
    }
    if (fsync) {
      SegmentFrames.forceDirectory(segment.getParent());
    }
    return frames.size();
  }

  /** The CRC-32 a hole of {@code length} zero bytes carries. */
  static int holeCrc(int length) {
    return SegmentFrames.crc(ByteBuffer.allocate(length));
  }

  /** The intact record frames before {@code before} whose body {@code doomed} accepts. */
  private static List<Frame> doomedFrames(Path segment, long before, Predicate<ByteBuffer> doomed)
      throws IOException {
    List<Frame> frames = new ArrayList<>();
    try (FileChannel in = FileChannel.open(segment, StandardOpenOption.READ)) {
      long size = in.size();
      long offset = SegmentFrames.SEGMENT_HEADER_BYTES;
      while (true) {
        // damaged or torn: recovery deals with it, nothing after it is read anyway
        SegmentFrames.Head frame = SegmentFrames.head(in, offset, size);
        if (frame == null) {
          break;
        }
        if (!frame.hole() && frame.position() < before) {
          ByteBuffer body = SegmentFrames.body(in, frame, offset);
          if (body != null && doomed.test(body.asReadOnlyBuffer())) {
            frames.add(new Frame(offset, frame.length(), frame.position()));
          }
        }
        offset += SegmentFrames.FRAME_HEADER_BYTES + frame.bodyLength();
      }
    }
    return frames;
  }
}
