package dev.memstack.builtin.extraction;

import dev.memstack.builtin.workspace.OwnerDirectoryName;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The recent messages of each conversation, kept by the builtin provider itself from {@code
 * syncTurn} so extraction can build a transcript. One JSON file per agent, owner and conversation
 * under {@code <data-dir>/conversations/<agent>/<owner>/<sha-256 of the conversation id>.json},
 * written atomically (temporary file, then rename). Bounded: at most {@code maxMessages} messages
 * per conversation (the oldest are dropped; the total count is kept) and each message cut at {@code
 * messageMaxChars}. A turn already among the kept messages is not added again. Thread-safe.
 */
public final class ConversationBuffer {

  /** One stored message. */
  public record Message(String turnId, String role, String text, boolean truncated, Instant time) {

    public Message {
      Objects.requireNonNull(turnId, "turnId");
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(time, "time");
    }
  }

  /** A conversation's kept messages, oldest first, and how many it had in all. */
  public record Conversation(long totalMessages, List<Message> messages) {

    public Conversation {
      messages = List.copyOf(messages);
    }

    static final Conversation EMPTY = new Conversation(0, List.of());
  }

  private final Path root;
  private final int maxMessages;
  private final int messageMaxChars;
  private final JsonMapper json =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
  private final ConcurrentHashMap<Path, Object> locks = new ConcurrentHashMap<>();

  public ConversationBuffer(Path dataDir, int maxMessages, int messageMaxChars) {
    this.root = dataDir.resolve("conversations");
    this.maxMessages = maxMessages;
    this.messageMaxChars = messageMaxChars;
  }

  /**
   * Adds the turn's non-empty user message and reply.
   *
   * @return the conversation after the turn
   */
  public Conversation append(Turn turn) {
    Path file = file(turn.agent(), turn.owner(), turn.conversationId());
    synchronized (locks.computeIfAbsent(file, f -> new Object())) {
      Conversation current = read(file);
      if (current.messages().stream().anyMatch(m -> m.turnId().equals(turn.turnId()))) {
        return current;
      }
      List<Message> messages = new ArrayList<>(current.messages());
      long total = current.totalMessages();
      if (!turn.userMessage().isBlank()) {
        messages.add(message(turn, "user", turn.userMessage()));
        total++;
      }
      if (!turn.assistantReply().isBlank()) {
        messages.add(message(turn, "assistant", turn.assistantReply()));
        total++;
      }
      while (messages.size() > maxMessages) {
        messages.remove(0);
      }
      Conversation next = new Conversation(total, messages);
      write(file, turn, next);
      return next;
    }
  }

  /** The conversation's kept messages; empty when none were recorded. */
  public Conversation read(AgentId agent, OwnerKey owner, String conversationId) {
    Path file = file(agent, owner, conversationId);
    synchronized (locks.computeIfAbsent(file, f -> new Object())) {
      return read(file);
    }
  }

  /** Deletes every conversation of {@code owner}; returns how many files were removed. */
  public long forget(OwnerKey owner) {
    if (!Files.isDirectory(root)) {
      return 0;
    }
    long removed = 0;
    String ownerDir = OwnerDirectoryName.encode(owner);
    try (Stream<Path> agents = Files.list(root)) {
      for (Path agentDir : agents.toList()) {
        Path dir = agentDir.resolve(ownerDir);
        if (Files.isDirectory(dir)) {
          try (Stream<Path> files = Files.walk(dir)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
              if (Files.isRegularFile(path)) {
                removed++;
              }
              Files.deleteIfExists(path);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot erase the conversations of " + owner, e);
    }
    return removed;
  }

  private Message message(Turn turn, String role, String text) {
    boolean truncated = text.length() > messageMaxChars;
    String kept = truncated ? text.substring(0, messageMaxChars) : text;
    return new Message(turn.turnId(), role, kept, truncated, turn.time());
  }

  private Path file(AgentId agent, OwnerKey owner, String conversationId) {
    return root.resolve(agent.value())
        .resolve(OwnerDirectoryName.encode(owner))
        .resolve(sha256(conversationId) + ".json");
  }

  private Conversation read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Conversation.EMPTY;
    }
    try {
      JsonNode node = json.readTree(Files.readString(file, StandardCharsets.UTF_8));
      List<Message> messages = new ArrayList<>();
      for (JsonNode m : node.path("messages")) {
        messages.add(
            new Message(
                m.path("turnId").asString(),
                m.path("role").asString(),
                m.path("text").asString(),
                m.path("truncated").asBoolean(false),
                Instant.parse(m.path("time").asString())));
      }
      return new Conversation(node.path("totalMessages").asLong(messages.size()), messages);
    } catch (IOException | RuntimeException e) {
      throw new UncheckedIOException(
          "cannot read the conversation file " + file,
          e instanceof IOException io ? io : new IOException(e));
    }
  }

  private void write(Path file, Turn turn, Conversation conversation) {
    ObjectNode node = json.createObjectNode();
    node.put("agentId", turn.agent().value());
    node.put("ownerKey", turn.owner().value());
    node.put("conversationId", turn.conversationId());
    node.put("totalMessages", conversation.totalMessages());
    ArrayNode array = node.putArray("messages");
    for (Message m : conversation.messages()) {
      ObjectNode item = array.addObject();
      item.put("turnId", m.turnId());
      item.put("role", m.role());
      item.put("text", m.text());
      item.put("truncated", m.truncated());
      item.put("time", m.time().toString());
    }
    try {
      Files.createDirectories(file.getParent());
      Path temp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(temp, json.writeValueAsString(node), StandardCharsets.UTF_8);
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the conversation file " + file, e);
    }
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
