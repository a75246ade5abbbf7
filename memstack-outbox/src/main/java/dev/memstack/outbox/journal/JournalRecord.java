package dev.memstack.outbox.journal;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.support.Require;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of one journal record, in a small binary encoding: a version byte, the kind ({@code
 * TURN} or {@code ERASE}), when the host accepted it, its recipients (provider ids), the owner and,
 * for a turn, the turn's fields; strings are a 4-byte length and UTF-8. The fields every reader
 * needs (kind, time, recipients, owner) come first, so that the journal's index is rebuilt without
 * decoding the messages.
 *
 * @param kind what the record asks of its recipients
 * @param acceptedAt when the host accepted it
 * @param recipients the provider ids it is addressed to, never empty
 * @param owner the owner the turn belongs to, or the owner to erase
 * @param turn the turn; {@code null} for an erasure
 */
public record JournalRecord(
    Kind kind, Instant acceptedAt, List<String> recipients, OwnerKey owner, Turn turn) {

  /** What a record asks of its recipients. */
  public enum Kind {
    /** Store this turn ({@code syncTurn}). */
    TURN,
    /** Erase this owner ({@code forget}); their earlier pending turns are not delivered. */
    ERASE
  }

  private static final byte VERSION = 1;
  private static final byte TURN_CODE = 1;
  private static final byte ERASE_CODE = 2;

  public JournalRecord {
    Require.nonNull("kind acceptedAt owner", kind, acceptedAt, owner);
    recipients = List.copyOf(recipients);
    if (recipients.isEmpty()) {
      throw new IllegalArgumentException("a journal record needs at least one recipient");
    }
    if ((kind == Kind.TURN) != (turn != null)) {
      throw new IllegalArgumentException("a TURN record carries a turn and an ERASE record none");
    }
  }

  public static JournalRecord turn(Turn turn, Instant acceptedAt, List<String> recipients) {
    return new JournalRecord(Kind.TURN, acceptedAt, recipients, turn.owner(), turn);
  }

  public static JournalRecord erase(OwnerKey owner, Instant acceptedAt, List<String> recipients) {
    return new JournalRecord(Kind.ERASE, acceptedAt, recipients, owner, null);
  }

  /** The fields of a record that its index needs. */
  public record Header(Kind kind, long acceptedAtMillis, List<String> recipients, String owner) {}

  /** This record's index fields, as {@link #decodeHeader} reads them back from its body. */
  public Header header() {
    return new Header(kind, acceptedAt.toEpochMilli(), recipients, owner.value());
  }

  public byte[] encode() {
    ByteArrayOutputStream bytes =
        new ByteArrayOutputStream(
            turn == null
                ? 128
                : 256 + turn.userMessage().length() + turn.assistantReply().length());
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeByte(kind == Kind.TURN ? TURN_CODE : ERASE_CODE);
      out.writeLong(acceptedAt.toEpochMilli());
      out.writeShort(recipients.size());
      for (String recipient : recipients) {
        writeString(out, recipient);
      }
      writeString(out, owner.value());
      if (turn != null) {
        writeString(out, turn.turnId());
        writeString(out, turn.agent().value());
        writeString(out, turn.conversationId());
        writeString(out, turn.userMessage());
        writeString(out, turn.assistantReply());
        writeString(out, turn.triggerSource().name());
        out.writeLong(turn.time().getEpochSecond());
        out.writeInt(turn.time().getNano());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Reads the leading fields of a record body.
   *
   * @throws CorruptRecordException when the body is not a record of this version
   */
  public static Header decodeHeader(ByteBuffer body) throws CorruptRecordException {
    try {
      ByteBuffer in = body.duplicate();
      return header(in);
    } catch (BufferUnderflowException | IllegalArgumentException e) {
      throw new CorruptRecordException("unreadable record: " + e.getMessage());
    }
  }

  /** Whether a record body is a turn of {@code owner} (what {@link Journal#expunge} erases). */
  public static boolean isTurnOf(ByteBuffer body, String owner) {
    try {
      Header header = decodeHeader(body);
      return header.kind() == Kind.TURN && header.owner().equals(owner);
    } catch (CorruptRecordException e) {
      return false;
    }
  }

  /**
   * Reads a whole record body.
   *
   * @throws CorruptRecordException when the body is not a record of this version or its fields are
   *     no longer valid
   */
  public static JournalRecord decode(ByteBuffer body) throws CorruptRecordException {
    try {
      ByteBuffer in = body.duplicate();
      Header header = header(in);
      OwnerKey owner = OwnerKey.of(header.owner());
      Instant acceptedAt = Instant.ofEpochMilli(header.acceptedAtMillis());
      if (header.kind() == Kind.ERASE) {
        return erase(owner, acceptedAt, header.recipients());
      }
      String turnId = readString(in);
      AgentId agent = AgentId.of(readString(in));
      String conversationId = readString(in);
      String userMessage = readString(in);
      String assistantReply = readString(in);
      TriggerSource triggerSource = TriggerSource.valueOf(readString(in));
      Instant time = Instant.ofEpochSecond(in.getLong(), in.getInt());
      Turn turn =
          new Turn(
              turnId,
              agent,
              owner,
              conversationId,
              userMessage,
              assistantReply,
              triggerSource,
              time);
      return JournalRecord.turn(turn, acceptedAt, header.recipients());
    } catch (BufferUnderflowException | IllegalArgumentException | NullPointerException e) {
      throw new CorruptRecordException("unreadable record: " + e.getMessage());
    }
  }

  private static Header header(ByteBuffer in) throws CorruptRecordException {
    byte version = in.get();
    if (version != VERSION) {
      throw new CorruptRecordException("unknown record version " + version);
    }
    byte code = in.get();
    Kind kind =
        switch (code) {
          case TURN_CODE -> Kind.TURN;
          case ERASE_CODE -> Kind.ERASE;
          default -> throw new CorruptRecordException("unknown record kind " + code);
        };
    long acceptedAt = in.getLong();
    int count = in.getShort();
    if (count < 1) {
      throw new CorruptRecordException("a record without recipients");
    }
    List<String> recipients = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      recipients.add(readString(in));
    }
    String owner = readString(in);
    return new Header(kind, acceptedAt, List.copyOf(recipients), owner);
  }

  private static void writeString(DataOutputStream out, String value) throws IOException {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    out.writeInt(utf8.length);
    out.write(utf8);
  }

  private static String readString(ByteBuffer in) {
    int length = in.getInt();
    if (length < 0 || length > in.remaining()) {
      throw new IllegalArgumentException("a string of " + length + " bytes does not fit");
    }
    byte[] utf8 = new byte[length];
    in.get(utf8);
    return new String(utf8, StandardCharsets.UTF_8);
  }
}
