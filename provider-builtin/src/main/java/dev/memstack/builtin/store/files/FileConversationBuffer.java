package dev.memstack.builtin.store.files;

import dev.memstack.builtin.store.ConversationBuffer;
import dev.memstack.builtin.store.ConversationJson;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@link ConversationBuffer} of {@code store=files}: one JSON file per agent, owner and
 * conversation under {@code <data-dir>/conversations/<agent>/<owner>/<sha-256 of the conversation
 * id>.json}, written atomically ({@link AtomicFiles}). Appends of one conversation are serialized
 * within this process only: the files belong to one host. Thread-safe.
 */
public final class FileConversationBuffer implements ConversationBuffer {

  private final Path root;
  private final int maxMessages;
  private final int messageMaxChars;
  private final JsonMapper json =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
  private final ConcurrentHashMap<Path, Object> locks = new ConcurrentHashMap<>();

  /**
   * A buffer under {@code <dataDir>/conversations}.
   *
   * @throws IllegalArgumentException if a bound is not positive
   */
  public FileConversationBuffer(Path dataDir, int maxMessages, int messageMaxChars) {
    ConversationBuffer.checkBounds(maxMessages, messageMaxChars);
    this.root = dataDir.resolve("conversations");
    this.maxMessages = maxMessages;
    this.messageMaxChars = messageMaxChars;
  }

  @Override
  public Conversation append(Turn turn) {
    Path file = file(turn.agent(), turn.owner(), turn.conversationId());
    synchronized (locks.computeIfAbsent(file, f -> new Object())) {
      Conversation current = read(file);
      Conversation next = ConversationBuffer.appended(current, turn, maxMessages, messageMaxChars);
      if (next != current) {
        write(file, turn, next);
      }
      return next;
    }
  }

  @Override
  public Conversation read(AgentId agent, OwnerKey owner, String conversationId) {
    Path file = file(agent, owner, conversationId);
    synchronized (locks.computeIfAbsent(file, f -> new Object())) {
      return read(file);
    }
  }

  /** Deletes every conversation file of {@code owner}; returns how many files were removed. */
  @Override
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

  private Path file(AgentId agent, OwnerKey owner, String conversationId) {
    return root.resolve(agent.value())
        .resolve(OwnerDirectoryName.encode(owner))
        .resolve(ConversationBuffer.key(conversationId) + ".json");
  }

  private Conversation read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Conversation.EMPTY;
    }
    try {
      JsonNode node = json.readTree(Files.readString(file, StandardCharsets.UTF_8));
      List<Message> messages = ConversationJson.read(node.path("messages"));
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
    ConversationJson.write(node.putArray("messages"), conversation.messages());
    try {
      AtomicFiles.createParentDirectories(file);
      AtomicFiles.writeString(file, json.writeValueAsString(node));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the conversation file " + file, e);
    }
  }
}
