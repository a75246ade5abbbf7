package dev.memstack.host.conversation;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import dev.memstack.support.AtomicFiles;
import dev.memstack.support.Digests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The on-disk {@link ConversationLog}: one JSON file per agent, owner and conversation under {@code
 * <memstack.data-dir>/conversations/<agent>/<sha-256 of the owner key>/<sha-256 of the conversation
 * id>.json}, rewritten atomically ({@link AtomicFiles}) on every turn. At most {@code maxTurns}
 * turns per owner and conversation are kept (the oldest are dropped) and each message is cut at
 * {@code maxMessageChars}. Owner erasure deletes the owner's folder under every agent, so no file
 * of the owner is left.
 *
 * <p>The files of the first releases ({@code conversations/<agent>/<sha-256 of the conversation
 * id>.json}, the turns of every owner in one file) are moved into this layout when the log is
 * created: each turn goes to its owner's file, and the old file is deleted once every owner's file
 * is written (a crash in between repeats the move at the next start; turn ids already moved are not
 * added twice). Caveat: a provider instance named {@code conversations} would share the folder name
 * with this log.
 */
public final class FileConversationLog implements ConversationLog {

  private static final Logger log = LoggerFactory.getLogger(FileConversationLog.class);

  private final Path root;
  private final ConversationLimits limits;
  private final JsonMapper json = JsonMapper.builder().build();

  /** One lock per agent and owner folder: appends, reads and the erasure of one owner. */
  private final ConcurrentHashMap<Path, Object> locks = new ConcurrentHashMap<>();

  /**
   * @throws UncheckedIOException when files of the first releases cannot be moved into the
   *     per-owner layout
   */
  public FileConversationLog(Path dataDir, ConversationLimits limits) {
    this.root = dataDir.toAbsolutePath().normalize().resolve("conversations");
    this.limits = limits;
    migrateSharedFiles();
  }

  /** The turns of one agent and conversation as one file holds them. */
  private record Stored(AgentId agent, String conversationId, List<ConversationEntry> turns) {}

  @Override
  public void append(Turn turn) {
    Path folder = ownerFolder(turn.agent(), turn.owner());
    synchronized (lock(folder)) {
      Path file = folder.resolve(Digests.sha256Hex(turn.conversationId()) + ".json");
      List<ConversationEntry> turns =
          new ArrayList<>(read(file).map(Stored::turns).orElse(List.of()));
      if (turns.stream().anyMatch(t -> t.turnId().equals(turn.turnId()))) {
        return;
      }
      turns.add(ConversationEntry.of(turn, limits.maxMessageChars()));
      write(file, new Stored(turn.agent(), turn.conversationId(), bounded(turns)));
    }
  }

  @Override
  public Optional<List<ConversationEntry>> turns(
      AgentId agent, OwnerKey owner, String conversationId) {
    Path folder = ownerFolder(agent, owner);
    synchronized (lock(folder)) {
      return read(folder.resolve(Digests.sha256Hex(conversationId) + ".json")).map(Stored::turns);
    }
  }

  @Override
  public List<ConversationSummary> conversations(AgentId agent, OwnerKey owner) {
    List<ConversationSummary> found = new ArrayList<>();
    for (Stored stored : stored(agent, owner)) {
      found.add(
          new ConversationSummary(
              stored.conversationId(),
              stored.turns().size(),
              stored.turns().stream()
                  .map(ConversationEntry::time)
                  .max(Comparator.naturalOrder())
                  .orElseThrow()));
    }
    found.sort(NEWEST_FIRST);
    return List.copyOf(found);
  }

  /** Reads each of the owner's conversation files once. */
  @Override
  public long turnsSince(AgentId agent, OwnerKey owner, Instant from) {
    return stored(agent, owner).stream()
        .flatMap(stored -> stored.turns().stream())
        .filter(entry -> !entry.time().isBefore(from))
        .count();
  }

  /** The owner's conversations with the agent that hold turns, as stored. */
  private List<Stored> stored(AgentId agent, OwnerKey owner) {
    Path folder = ownerFolder(agent, owner);
    List<Stored> found = new ArrayList<>();
    synchronized (lock(folder)) {
      if (!Files.isDirectory(folder)) {
        return List.of();
      }
      for (Path file : files(folder)) {
        if (file.getFileName().toString().endsWith(".json")) {
          read(file).filter(stored -> !stored.turns().isEmpty()).ifPresent(found::add);
        }
      }
    }
    return found;
  }

  @Override
  public long deleteConversation(AgentId agent, OwnerKey owner, String conversationId) {
    Path folder = ownerFolder(agent, owner);
    synchronized (lock(folder)) {
      Path file = folder.resolve(Digests.sha256Hex(conversationId) + ".json");
      long removed = read(file).map(stored -> stored.turns().size()).orElse(0);
      delete(file);
      return removed;
    }
  }

  @Override
  public long forget(OwnerKey owner) {
    long removed = 0;
    for (Path agentFolder : agentFolders()) {
      Path folder = agentFolder.resolve(Digests.sha256Hex(owner.value()));
      synchronized (lock(folder)) {
        if (!Files.isDirectory(folder)) {
          continue;
        }
        for (Path file : files(folder)) {
          if (file.getFileName().toString().endsWith(".json")) {
            removed += read(file).map(stored -> stored.turns().size()).orElse(0);
          }
        }
        deleteTree(folder);
      }
    }
    return removed;
  }

  /** Reads one file per agent and owner folder: each names its owner. */
  @Override
  public Set<String> ownerKeys() {
    Set<String> keys = new TreeSet<>();
    for (Path agentFolder : agentFolders()) {
      for (Path folder : files(agentFolder)) {
        if (!Files.isDirectory(folder)) {
          continue;
        }
        synchronized (lock(folder)) {
          for (Path file : files(folder)) {
            if (!file.getFileName().toString().endsWith(".json")) {
              continue;
            }
            Optional<String> owner =
                read(file)
                    .flatMap(stored -> stored.turns().stream().findFirst())
                    .map(ConversationEntry::ownerKey);
            if (owner.isPresent()) {
              keys.add(owner.get());
              break;
            }
          }
        }
      }
    }
    return keys;
  }

  /** The order of {@link #conversations}: the newest last turn first, then by id. */
  static final Comparator<ConversationSummary> NEWEST_FIRST =
      Comparator.comparing(ConversationSummary::lastTurnAt)
          .reversed()
          .thenComparing(ConversationSummary::conversationId);

  private Object lock(Path folder) {
    return locks.computeIfAbsent(folder, f -> new Object());
  }

  private Path ownerFolder(AgentId agent, OwnerKey owner) {
    return root.resolve(agent.value()).resolve(Digests.sha256Hex(owner.value()));
  }

  private List<ConversationEntry> bounded(List<ConversationEntry> turns) {
    int maxTurns = limits.maxTurns();
    return turns.size() <= maxTurns ? turns : turns.subList(turns.size() - maxTurns, turns.size());
  }

  /**
   * Moves every file of the first releases (all owners of a conversation in one file, directly in
   * the agent's folder) into the per-owner layout, then deletes it.
   */
  private void migrateSharedFiles() {
    int moved = 0;
    for (Path agentFolder : agentFolders()) {
      for (Path file : files(agentFolder)) {
        String name = file.getFileName().toString();
        if (!Files.isRegularFile(file)) {
          continue;
        }
        if (name.endsWith(".json")) {
          moveShared(file);
          moved++;
        }
        if (name.endsWith(AtomicFiles.TEMP_SUFFIX)) {
          delete(file);
        }
      }
    }
    if (moved > 0) {
      log.info("Moved {} conversation file(s) into the per-owner layout under {}", moved, root);
    }
  }

  private void moveShared(Path shared) {
    Stored stored = read(shared).orElse(null);
    Map<String, List<ConversationEntry>> byOwner = new LinkedHashMap<>();
    for (ConversationEntry turn : stored == null ? List.<ConversationEntry>of() : stored.turns()) {
      byOwner.computeIfAbsent(turn.ownerKey(), o -> new ArrayList<>()).add(turn);
    }
    for (Map.Entry<String, List<ConversationEntry>> entry : byOwner.entrySet()) {
      Path folder = ownerFolder(stored.agent(), OwnerKey.of(entry.getKey()));
      synchronized (lock(folder)) {
        Path file = folder.resolve(shared.getFileName());
        List<ConversationEntry> merged = new ArrayList<>(entry.getValue());
        for (ConversationEntry later : read(file).map(Stored::turns).orElse(List.of())) {
          if (merged.stream().noneMatch(t -> t.turnId().equals(later.turnId()))) {
            merged.add(later);
          }
        }
        write(file, new Stored(stored.agent(), stored.conversationId(), bounded(merged)));
      }
    }
    delete(shared);
  }

  private List<Path> agentFolders() {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    return files(root).stream().filter(Files::isDirectory).toList();
  }

  private static List<Path> files(Path folder) {
    try (Stream<Path> list = Files.list(folder)) {
      return list.toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the conversation log folder " + folder, e);
    }
  }

  private static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete from the conversation log: " + file, e);
    }
  }

  private static void deleteTree(Path folder) {
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(folder)) {
      paths = walk.sorted(Comparator.reverseOrder()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot erase from the conversation log: " + folder, e);
    }
    paths.forEach(FileConversationLog::delete);
  }

  private Optional<Stored> read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    return Optional.of(ConversationFiles.read(file, "conversation log file", this::stored));
  }

  private Stored stored(JsonNode node) {
    AgentId agent = AgentId.of(node.path("agentId").asString());
    String conversationId = node.path("conversationId").asString();
    // a per-owner file names its owner once; a file of the first releases names it per turn
    String fileOwner = node.hasNonNull("ownerKey") ? node.get("ownerKey").asString() : null;
    List<ConversationEntry> turns = new ArrayList<>();
    for (JsonNode t : node.path("turns")) {
      turns.add(
          new ConversationEntry(
              t.path("turnId").asString(),
              OwnerKey.of(fileOwner != null ? fileOwner : t.path("ownerKey").asString()).value(),
              t.path("userMessage").asString(),
              t.path("assistantReply").asString(),
              t.path("triggerSource").asString(),
              Instant.parse(t.path("time").asString())));
    }
    return new Stored(agent, conversationId, turns);
  }

  /** Writes the turns of one agent, owner and conversation (never empty). */
  private void write(Path file, Stored stored) {
    List<ConversationEntry> turns = stored.turns();
    ConversationFiles.Head head =
        new ConversationFiles.Head(
            stored.agent(), turns.get(turns.size() - 1).ownerKey(), stored.conversationId());
    ConversationFiles.write(
        file,
        "conversation log",
        head,
        "turns",
        turns,
        (item, t) ->
            item.put("turnId", t.turnId())
                .put("userMessage", t.userMessage())
                .put("assistantReply", t.assistantReply())
                .put("triggerSource", t.triggerSource())
                .put("time", t.time().toString()));
  }
}
