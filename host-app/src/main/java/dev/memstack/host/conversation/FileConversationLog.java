package dev.memstack.host.conversation;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The on-disk {@link ConversationLog}: one JSON file per conversation under {@code
 * <memstack.data-dir>/conversations/<agent>/<sha-256 of the conversation id>.json}, rewritten
 * atomically (temporary file, then rename) on every turn. At most {@code maxTurns} turns per
 * conversation are kept (the oldest are dropped) and each message is cut at {@code
 * maxMessageChars}. Owner erasure removes the owner's turns from every file. Caveat: a provider
 * instance named {@code conversations} would share the folder name with this log.
 */
public final class FileConversationLog implements ConversationLog {

  private final Path root;
  private final int maxTurns;
  private final int maxMessageChars;
  private final JsonMapper json = JsonMapper.builder().build();
  private final ConcurrentHashMap<Path, Object> locks = new ConcurrentHashMap<>();

  public FileConversationLog(Path dataDir, int maxTurns, int maxMessageChars) {
    this.root = dataDir.toAbsolutePath().normalize().resolve("conversations");
    this.maxTurns = maxTurns;
    this.maxMessageChars = maxMessageChars;
  }

  @Override
  public void append(LoggedTurn turn) {
    Path file = file(turn.agent(), turn.conversationId());
    synchronized (locks.computeIfAbsent(file, f -> new Object())) {
      List<LoggedTurn> turns = new ArrayList<>(read(file).orElse(List.of()));
      if (turns.stream().anyMatch(t -> t.turnId().equals(turn.turnId()))) {
        return;
      }
      turns.add(
          new LoggedTurn(
              turn.turnId(),
              turn.agent(),
              turn.owner(),
              turn.conversationId(),
              cut(turn.userMessage()),
              cut(turn.assistantReply()),
              turn.triggerSource(),
              turn.time()));
      while (turns.size() > maxTurns) {
        turns.remove(0);
      }
      write(file, turn, turns);
    }
  }

  @Override
  public Optional<List<LoggedTurn>> turns(AgentId agent, String conversationId) {
    Path file = file(agent, conversationId);
    synchronized (locks.computeIfAbsent(file, f -> new Object())) {
      return read(file);
    }
  }

  @Override
  public long forget(OwnerKey owner) {
    if (!Files.isDirectory(root)) {
      return 0;
    }
    List<Path> files;
    try (var walk = Files.walk(root)) {
      files = walk.filter(f -> f.getFileName().toString().endsWith(".json")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the conversation log " + root, e);
    }
    long removed = 0;
    for (Path file : files) {
      synchronized (locks.computeIfAbsent(file, f -> new Object())) {
        List<LoggedTurn> turns = read(file).orElse(List.of());
        List<LoggedTurn> kept = turns.stream().filter(t -> !t.owner().equals(owner)).toList();
        if (kept.size() == turns.size()) {
          continue;
        }
        removed += turns.size() - kept.size();
        try {
          if (kept.isEmpty()) {
            Files.deleteIfExists(file);
          } else {
            write(file, kept.get(kept.size() - 1), kept);
          }
        } catch (IOException e) {
          throw new UncheckedIOException("cannot erase from the conversation log " + file, e);
        }
      }
    }
    return removed;
  }

  private String cut(String text) {
    return text.length() <= maxMessageChars ? text : text.substring(0, maxMessageChars) + " …";
  }

  private Path file(AgentId agent, String conversationId) {
    return root.resolve(agent.value()).resolve(sha256(conversationId) + ".json");
  }

  private Optional<List<LoggedTurn>> read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    try {
      JsonNode node = json.readTree(Files.readString(file, StandardCharsets.UTF_8));
      AgentId agent = AgentId.of(node.path("agentId").asString());
      String conversationId = node.path("conversationId").asString();
      List<LoggedTurn> turns = new ArrayList<>();
      for (JsonNode t : node.path("turns")) {
        turns.add(
            new LoggedTurn(
                t.path("turnId").asString(),
                agent,
                OwnerKey.of(t.path("ownerKey").asString()),
                conversationId,
                t.path("userMessage").asString(),
                t.path("assistantReply").asString(),
                t.path("triggerSource").asString(),
                Instant.parse(t.path("time").asString())));
      }
      return Optional.of(turns);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the conversation log " + file, e);
    }
  }

  private void write(Path file, LoggedTurn last, List<LoggedTurn> turns) {
    ObjectNode node = json.createObjectNode();
    node.put("agentId", last.agent().value());
    node.put("conversationId", last.conversationId());
    ArrayNode array = node.putArray("turns");
    for (LoggedTurn t : turns) {
      ObjectNode item = array.addObject();
      item.put("turnId", t.turnId());
      item.put("ownerKey", t.owner().value());
      item.put("userMessage", t.userMessage());
      item.put("assistantReply", t.assistantReply());
      item.put("triggerSource", t.triggerSource());
      item.put("time", t.time().toString());
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
      throw new UncheckedIOException("cannot write the conversation log " + file, e);
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
