package dev.memstack.vector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.Turn;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

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
  private static final Pattern DATE_PREFIX = Pattern.compile("^\\[\\d{4}-\\d{2}-\\d{2}\\] ");

  private MemoryTexts() {}

  /** The records of one turn, in order: user chunks, then (for EXCHANGE) reply chunks. */
  static List<MemoryRecord> turnRecords(Turn turn, VectorSettings.Capture capture, int chunkSize) {
    List<MemoryRecord> records = new ArrayList<>();
    addUtterance(records, turn, "user", turn.userMessage(), chunkSize);
    if (capture == VectorSettings.Capture.EXCHANGE) {
      addUtterance(records, turn, "assistant", turn.assistantReply(), chunkSize);
    }
    return records;
  }

  private static void addUtterance(
      List<MemoryRecord> records, Turn turn, String role, String text, int chunkSize) {
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
              Map.of(
                  "role",
                  role,
                  "chunk",
                  (long) i,
                  "chunks",
                  (long) chunks.size(),
                  "source",
                  "turn",
                  "trigger",
                  turn.triggerSource().wireName())));
    }
  }

  /** A record written through the {@code remember} tool. */
  static MemoryRecord remembered(
      AgentId agent, OwnerKey owner, Scope scope, String type, String text, Instant now) {
    String normalized = normalize(text);
    String id =
        nameId(
            "remember",
            agent.value(),
            owner == null ? "" : owner.value(),
            scope.name(),
            normalized);
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
        Map.of("source", "tool"));
  }

  /** {@code [yyyy-MM-dd] text}, the date in UTC. */
  static String dated(Instant time, String text) {
    return "[" + DAY.format(time) + "] " + text;
  }

  /** The stored text without its date prefix (the date travels as {@code createdAt}). */
  static String undated(String text) {
    return DATE_PREFIX.matcher(text).replaceFirst("");
  }

  /** Lower case, single spaces: two texts that normalise alike are the same memory. */
  static String normalize(String text) {
    return text.strip().replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
  }

  private static String nameId(String... parts) {
    return UUID.nameUUIDFromBytes(String.join("\u0000", parts).getBytes(StandardCharsets.UTF_8))
        .toString();
  }
}
