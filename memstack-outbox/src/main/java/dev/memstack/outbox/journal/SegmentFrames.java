package dev.memstack.outbox.journal;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32;

/**
 * The on-disk format of a segment file, which must not change (existing data folders are read by
 * later versions): an 8-byte magic, then frames of a 16-byte header ({@code int} body length,
 * negative for a hole left by an erasure; {@code int} CRC-32 of the body; {@code long} position)
 * and the body. Reading and writing helpers for {@link SegmentLog} and {@link SegmentExpunger}.
 */
final class SegmentFrames {

  /** "MSOUTBX1": the first 8 bytes of every segment. */
  static final long MAGIC = 0x4D534F5554425831L;

  static final int SEGMENT_HEADER_BYTES = 8;
  static final int FRAME_HEADER_BYTES = 16;

  /** Largest accepted record body; a turn of two maximal messages takes about 1.2 MB. */
  static final int MAX_BODY_BYTES = 16 * 1024 * 1024;

  /**
   * A frame's header as read.
   *
   * @param length the body length, negative for a hole
   * @param crc the body's CRC-32
   * @param position the record's position
   */
  record Head(int length, int crc, long position) {

    int bodyLength() {
      return Math.abs(length);
    }

    /** Whether the frame is a hole (a record erased with its owner). */
    boolean hole() {
      return length < 0;
    }
  }

  private SegmentFrames() {}

  /**
   * The frame header at {@code offset} of a file of {@code size} bytes; {@code null} when no whole
   * frame fits there or the header cannot be one (damaged or torn: nothing after it is read).
   */
  static Head head(FileChannel channel, long offset, long size) throws IOException {
    if (offset + FRAME_HEADER_BYTES > size) {
      return null;
    }
    ByteBuffer head = ByteBuffer.allocate(FRAME_HEADER_BYTES);
    readFully(channel, head, offset);
    head.flip();
    Head frame = new Head(head.getInt(), head.getInt(), head.getLong());
    if (frame.length() == 0
        || frame.bodyLength() > MAX_BODY_BYTES
        || offset + FRAME_HEADER_BYTES + frame.bodyLength() > size) {
      return null;
    }
    return frame;
  }

  /** The body of the frame at {@code offset}; {@code null} when its CRC does not match. */
  static ByteBuffer body(FileChannel channel, Head frame, long offset) throws IOException {
    ByteBuffer body = ByteBuffer.allocate(frame.bodyLength());
    readFully(channel, body, offset + FRAME_HEADER_BYTES);
    body.flip();
    return crc(body) == frame.crc() ? body : null;
  }

  static int crc(ByteBuffer body) {
    CRC32 crc = new CRC32();
    crc.update(body.duplicate());
    return (int) crc.getValue();
  }

  static void writeFully(FileChannel channel, ByteBuffer buffer, long offset) throws IOException {
    long at = offset;
    while (buffer.hasRemaining()) {
      at += channel.write(buffer, at);
    }
  }

  static void readFully(FileChannel channel, ByteBuffer buffer, long offset) throws IOException {
    long at = offset;
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, at);
      if (read < 0) {
        throw new EOFException("unexpected end of " + channel + " at " + at);
      }
      at += read;
    }
  }

  static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // nothing more to do
      }
    }
  }

  static void forceDirectory(Path dir) {
    try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
      directory.force(true);
    } catch (IOException e) {
      // not every file system can sync a directory; the segment itself is on disk
    }
  }
}
