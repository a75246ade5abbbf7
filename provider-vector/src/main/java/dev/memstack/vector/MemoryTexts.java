package dev.memstack.vector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.Turn;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.text.ReplyFiller;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * How memory records are written: the text that is embedded and indexed carries the date and who
 * said it ({@code [2026-03-02] user: I adopted ...}), because role and date context measurably help
 * recall; ids are name-based UUIDs of what the record stands for, so a turn delivered twice maps to
 * the same records.
 */
final class MemoryTexts {

  static final String RAW = "RAW";

  private static final DateTimeFormatter DAY =
      DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT).withZone(ZoneOffset.UTC);

  private MemoryTexts() {}

  /**
   * Metadata key of a user message's records: the assistant's reply, cut to {@value #REPLY_MAX}.
   */
  static final String REPLY = "reply";

  /** Most characters of the reply kept in {@link #REPLY} (a longer reply ends in "…"). */
  static final int REPLY_MAX = 500;

  /**
   * The records of one turn, in order: user chunks, then (for EXCHANGE, and only when the reply is
   * not {@linkplain ReplyFiller filler}) reply chunks. With EXCHANGE every user chunk carries the
   * reply (cut) in {@link #REPLY}, so an acknowledgement travels as context of what it answers
   * instead of being recalled on its own; with USER nothing of the reply is stored.
   */
  static List<MemoryRecord> turnRecords(Turn turn, VectorSettings.Capture capture, int chunkSize) {
    List<MemoryRecord> records = new ArrayList<>();
    boolean exchange = capture == VectorSettings.Capture.EXCHANGE;
    String reply = exchange ? replyContext(turn.assistantReply()) : null;
    addUtterance(records, turn, "user", turn.userMessage(), chunkSize, reply);
    if (exchange && !ReplyFiller.isFiller(turn.assistantReply())) {
      addUtterance(records, turn, "assistant", turn.assistantReply(), chunkSize, null);
    }
    return records;
  }

  /** The reply as context: stripped, at most {@value #REPLY_MAX} characters; null when blank. */
  static String replyContext(String reply) {
    if (reply == null || reply.isBlank()) {
      return null;
    }
    String text = reply.strip().replaceAll("\\s+", " ");
    if (text.length() <= REPLY_MAX) {
      return text;
    }
    int end = REPLY_MAX - 1;
    if (Character.isHighSurrogate(text.charAt(end - 1))) {
      end--; // never half an emoji
    }
    return text.substring(0, end) + "…";
  }

  private static void addUtterance(
      List<MemoryRecord> records,
      Turn turn,
      String role,
      String text,
      int chunkSize,
      String reply) {
    List<String> chunks = TextChunker.chunks(text, chunkSize);
    for (int i = 0; i < chunks.size(); i++) {
      String id =
          nameId(
              "turn",
              turn.agent().value(),
              turn.owner().value(),
              turn.turnId(),
              role,
              Integer.toString(i));
      Map<String, Object> extra = new LinkedHashMap<>();
      extra.put("role", role);
      extra.put("chunk", (long) i);
      extra.put("chunks", (long) chunks.size());
      extra.put("source", "turn");
      extra.put("trigger", turn.triggerSource().wireName());
      if (reply != null) {
        extra.put(REPLY, reply);
      }
      records.add(
          new MemoryRecord(
              id,
              dated(turn.time(), role + ": " + chunks.get(i)),
              turn.agent(),
              turn.owner(),
              Scope.PERSONAL,
              MemoryStatus.ACTIVE,
              RAW,
              turn.conversationId(),
              turn.turnId(),
              turn.time(),
              extra));
    }
  }

  /** A record written through the {@code remember} tool. */
  static MemoryRecord remembered(
      AgentId agent, OwnerKey owner, Scope scope, String type, String text, Instant now) {
    String normalized = normalize(text);
    String id = toolId("remember", agent, owner, scope, normalized);
    return fromTool(id, agent, owner, scope, type, text, now, Map.of("source", "tool"));
  }

  /** An active record written by a tool {@code now}, its text dated, in no conversation. */
  private static MemoryRecord fromTool(
      String id,
      AgentId agent,
      OwnerKey owner,
      Scope scope,
      String type,
      String text,
      Instant now,
      Map<String, Object> metadata) {
    return new MemoryRecord(
        id,
        dated(now, text.strip()),
        agent,
        owner,
        scope,
        MemoryStatus.ACTIVE,
        type,
        null,
        null,
        now,
        metadata);
  }

  /** Metadata key of a named memory: its name, as given ({@code remember} with a name). */
  static final String NAME = "name";

  /** Metadata key of a named memory whose text was replaced: when (epoch millis). */
  static final String UPDATED_AT = MemoryRecord.UPDATED_AT;

  /**
   * A memory stored by {@code remember} with a name: its id is derived from agent, owner, scope,
   * type and the name (whitespace collapsed, case ignored), not from the text, so remembering the
   * same name again finds the same record.
   */
  static MemoryRecord named(
      AgentId agent,
      OwnerKey owner,
      Scope scope,
      String type,
      String name,
      String text,
      Instant now) {
    String id = toolId("remember-named", agent, owner, scope, type, normalize(name));
    return fromTool(
        id, agent, owner, scope, type, text, now, Map.of("source", "tool", NAME, name.strip()));
  }

  /** {@code [yyyy-MM-dd] text}, the date in UTC. */
  static String dated(Instant time, String text) {
    return "[" + DAY.format(time) + "] " + text;
  }

  /** The stored text without its date prefix (the date travels as {@code createdAt}). */
  static String undated(String text) {
    return MemoryRecord.undated(text);
  }

  /** Lower case, single spaces: two texts that normalise alike are the same memory. */
  static String normalize(String text) {
    return text.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
  }

  /** The id of a record a tool writes: derived from its kind, where it lives and {@code key}. */
  private static String toolId(
      String kind, AgentId agent, OwnerKey owner, Scope scope, String... key) {
    List<String> parts = new ArrayList<>(List.of(kind, agent.value()));
    parts.add(owner == null ? "" : owner.value());
    parts.add(scope.name());
    parts.addAll(List.of(key));
    return nameId(parts.toArray(String[]::new));
  }

  private static String nameId(String... parts) {
    return UUID.nameUUIDFromBytes(String.join("\u0000", parts).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  /**
   * Where a record came from, for recall items and tool answers, in this order and only those it
   * has: {@code conversation}, {@code turn}, {@code role} and {@value #REPLY} (the answer to a user
   * message).
   */
  static Map<String, String> origin(MemoryRecord record) {
    Map<String, String> origin = new java.util.LinkedHashMap<>();
    if (record.conversation() != null) {
      origin.put("conversation", record.conversation());
    }
    if (record.turn() != null) {
      origin.put("turn", record.turn());
    }
    for (String key : List.of("role", REPLY)) {
      Object value = record.extra().get(key);
      if (value != null) {
        origin.put(key, value.toString());
      }
    }
    return origin;
  }
}
