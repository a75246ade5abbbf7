package dev.memstack.vector.pgvector;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import org.postgresql.copy.CopyIn;

/**
 * Rows for {@code COPY ... FROM STDIN (FORMAT binary)}, written to a PgJDBC {@link CopyIn} a buffer
 * at a time. The binary format saves the work that dominates a text {@code COPY} of vectors:
 * writing 384 floats as decimal text on the client (~0.1 ms a vector with JDK 17's {@code
 * Float.toString}) and parsing them back on the server; here a vector is its 4-byte floats, as
 * pgvector's {@code vector_recv} reads them. Field forms (PostgreSQL's {@code *_recv} functions):
 * {@code text} its UTF-8 bytes (PgJDBC's client encoding), {@code jsonb} a version byte 1 and the
 * JSON text, {@code timestamptz} microseconds since 2000-01-01 UTC as a 64-bit integer. Not
 * thread-safe; one per {@code COPY}.
 */
final class PgBinaryCopy {

  private static final byte[] SIGNATURE = {
    'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xff, '\r', '\n', 0
  };

  /** 2000-01-01T00:00:00Z in epoch milliseconds: PostgreSQL's epoch. */
  private static final long POSTGRES_EPOCH_MILLIS = 946_684_800_000L;

  private static final int FLUSH_AT = 1 << 20;

  private final CopyIn copy;
  private ByteBuffer buffer = ByteBuffer.allocate(FLUSH_AT + 65_536);

  /** Starts the stream (signature, no flags, no header extension). */
  PgBinaryCopy(CopyIn copy) {
    this.copy = copy;
    buffer.put(SIGNATURE).putInt(0).putInt(0);
  }

  /** Starts a row of {@code fields} fields; sends what is buffered once it is large. */
  PgBinaryCopy row(int fields) throws SQLException {
    if (buffer.position() >= FLUSH_AT) {
      flush();
    }
    room(2);
    buffer.putShort((short) fields);
    return this;
  }

  /** A {@code text} field; SQL null for {@code null}. */
  PgBinaryCopy text(String value) {
    if (value == null) {
      return nullField();
    }
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    room(4 + bytes.length);
    buffer.putInt(bytes.length).put(bytes);
    return this;
  }

  /** A {@code jsonb} field from its JSON text. */
  PgBinaryCopy jsonb(String json) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    room(5 + bytes.length);
    buffer.putInt(1 + bytes.length).put((byte) 1).put(bytes);
    return this;
  }

  /** A {@code vector} field: the dimension, a zero, the floats. */
  PgBinaryCopy vector(float[] vector) {
    room(8 + 4 * vector.length);
    buffer.putInt(4 + 4 * vector.length).putShort((short) vector.length).putShort((short) 0);
    for (float f : vector) {
      buffer.putFloat(f);
    }
    return this;
  }

  /** A {@code timestamptz} field at {@code epochMillis}. */
  PgBinaryCopy timestamptz(long epochMillis) {
    room(12);
    buffer.putInt(8).putLong((epochMillis - POSTGRES_EPOCH_MILLIS) * 1000);
    return this;
  }

  private PgBinaryCopy nullField() {
    room(4);
    buffer.putInt(-1);
    return this;
  }

  /** Writes the trailer, sends the rest and ends the {@code COPY}; how many rows it stored. */
  long end() throws SQLException {
    room(2);
    buffer.putShort((short) -1);
    flush();
    return copy.endCopy();
  }

  private void flush() throws SQLException {
    copy.writeToCopy(buffer.array(), 0, buffer.position());
    buffer.clear();
  }

  /** Grows the buffer (one large field) so {@code bytes} more fit. */
  private void room(int bytes) {
    if (buffer.remaining() < bytes) {
      ByteBuffer larger =
          ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + bytes));
      buffer.flip();
      larger.put(buffer);
      buffer = larger;
    }
  }
}
