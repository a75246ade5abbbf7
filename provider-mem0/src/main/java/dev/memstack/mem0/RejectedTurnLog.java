package dev.memstack.mem0;

import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns the server refused for good (400, 413, 422): sending them again would fail the same way
 * and, because turns go out in order, would hold up every later turn. Each is written whole to
 * {@code rejected-turns.jsonl} in the instance's data directory (one JSON object per line, with the
 * server's answer) so that nothing is dropped silently and an operator can replay it; {@link
 * #removeOwner(OwnerKey)} erases an owner's lines when the owner is forgotten. Thread-safe.
 */
final class RejectedTurnLog {

  static final String FILE_NAME = "rejected-turns.jsonl";

  private final Path file;
  private final JsonMapper json;
  private final AtomicLong sinceStart = new AtomicLong();

  RejectedTurnLog(Path directory, JsonMapper json) {
    this.file = directory.resolve(FILE_NAME);
    this.json = json;
  }

  Path file() {
    return file;
  }

  /** How many turns were refused since this instance started. */
  long sinceStart() {
    return sinceStart.get();
  }

  synchronized void record(Turn turn, Mem0Exception error, Instant now) {
    ObjectNode line = json.createObjectNode();
    line.put("rejected_at", now.toString());
    line.put("turn_id", turn.turnId());
    line.put("agent_id", turn.agent().value());
    line.put("owner", turn.owner().value());
    line.put("conversation_id", turn.conversationId());
    line.put("trigger_source", turn.triggerSource().wireName());
    line.put("time", turn.time().toString());
    line.put("user_message", turn.userMessage());
    line.put("assistant_reply", turn.assistantReply());
    line.put("status", error.status());
    line.put("request_id", error.requestId());
    line.put("error", error.getMessage());
    try {
      Files.writeString(
          file,
          json.writeValueAsString(line) + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    sinceStart.incrementAndGet();
  }

  /** Removes the owner's refused turns; returns how many were removed. */
  synchronized long removeOwner(OwnerKey owner) {
    if (!Files.exists(file)) {
      return 0;
    }
    try {
      List<String> kept = new ArrayList<>();
      long removed = 0;
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode node;
        try {
          node = json.readTree(line);
        } catch (JacksonException e) {
          kept.add(line);
          continue;
        }
        if (owner.value().equals(node.path("owner").asString(null))) {
          removed++;
        } else {
          kept.add(line);
        }
      }
      if (removed > 0) {
        AtomicFiles.writeLines(file, kept);
      }
      return removed;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot rewrite " + file, e);
    }
  }
}
