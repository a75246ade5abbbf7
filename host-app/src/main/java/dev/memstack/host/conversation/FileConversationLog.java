package dev.memstack.host.conversation;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import dev.memstack.support.AtomicFiles;
import dev.memstack.support.Digests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import tools.jackson.databind.node.ObjectNode;

/**
 * The on-disk {@link ConversationLog}: one file of JSON lines per agent, owner and conversation
 * under {@code <memstack.data-dir>/conversations/<agent>/<sha-256 of the owner key>/<sha-256 of the
 * conversation id>.jsonl}. Its first line names the agent, owner and conversation; each further
 * line is one turn. A turn is appended and the file synced (one write and one {@code fdatasync} on
 * the request path, whatever the conversation's length); a new file is written whole and atomically
 * ({@link AtomicFiles}). At most {@code maxTurns} turns per owner and conversation are read back
 * (the oldest are dropped); once a file holds half as many again, it is rewritten atomically with
 * its newest {@code maxTurns}, so it never grows past that. Each message is cut at {@code
 * maxMessageChars}. A last line that a crash left unfinished is not read, and the next append cuts
 * it off. Owner erasure deletes the owner's folder under every agent, so no file of the owner is
 * left.
 *
 * <p>Earlier files are read as they are and moved to this format by the next append to them: {@code
 * <sha-256 of the conversation id>.json} in the owner's folder (one JSON document, rewritten on
 * every turn, of the releases before append-only files), and the files of the first releases
 * ({@code conversations/<agent>/<sha-256 of the conversation id>.json}, the turns of every owner in
 * one file), which are split per owner when the log is created: the old file is deleted once every
 * owner's file is written (a crash in between repeats the move at the next start; turn ids already
 * moved are not added twice). Caveat: a provider instance named {@code conversations} would share
 * the folder name with this log.
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

  /** The extension of the append-only files. */
  static final String LINES = ".jsonl";

  /** The extension of a whole-document file of the earlier releases. */
  static final String DOCUMENT = ".json";

  @Override
  public void append(Turn turn) {
    Path folder = ownerFolder(turn.agent(), turn.owner());
    ConversationEntry entry = ConversationEntry.of(turn, limits.maxMessageChars());
    synchronized (lock(folder)) {
      String name = Digests.sha256Hex(turn.conversationId());
      Path file = folder.resolve(name + LINES);
      Path document = folder.resolve(name + DOCUMENT);
      try {
        if (!Files.isRegularFile(file)) {
          // a new conversation, or one an earlier release wrote as one document: written whole
          List<ConversationEntry> turns =
              new ArrayList<>(readDocument(document).map(Stored::turns).orElse(List.of()));
          if (turns.stream().noneMatch(t -> t.turnId().equals(turn.turnId()))) {
            turns.add(entry);
          }
          rewrite(file, new Stored(turn.agent(), turn.conversationId(), bounded(turns)));
          Files.deleteIfExists(document);
          return;
        }
        byte[] bytes = Files.readAllBytes(file);
        int end = completeLength(bytes);
        String raw = raw(bytes, end);
        if (holdsTurn(raw, turn.turnId())) {
          return;
        }
        int kept = lineCount(raw) - 1;
        if (kept + 1 > limits.maxTurns() + slack()) {
          Stored stored = parseLines(file, bytes, end);
          List<ConversationEntry> turns = new ArrayList<>(stored.turns());
          turns.add(entry);
          rewrite(file, new Stored(stored.agent(), stored.conversationId(), bounded(turns)));
          return;
        }
        appendLine(file, end, bytes.length, line(entry));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write the conversation log " + file, e);
      }
    }
  }

  /** How many turns past {@code maxTurns} a file may hold before it is rewritten with fewer. */
  private int slack() {
    return Math.max(8, limits.maxTurns() / 2);
  }

  @Override
  public Optional<List<ConversationEntry>> turns(
      AgentId agent, OwnerKey owner, String conversationId) {
    Path folder = ownerFolder(agent, owner);
    synchronized (lock(folder)) {
      return read(folder, Digests.sha256Hex(conversationId)).map(Stored::turns);
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
      for (String name : conversationNames(folder)) {
        read(folder, name).filter(stored -> !stored.turns().isEmpty()).ifPresent(found::add);
      }
    }
    return found;
  }

  @Override
  public long deleteConversation(AgentId agent, OwnerKey owner, String conversationId) {
    Path folder = ownerFolder(agent, owner);
    synchronized (lock(folder)) {
      String name = Digests.sha256Hex(conversationId);
      long removed = read(folder, name).map(stored -> stored.turns().size()).orElse(0);
      delete(folder.resolve(name + LINES));
      delete(folder.resolve(name + DOCUMENT));
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
        for (String name : conversationNames(folder)) {
          removed += read(folder, name).map(stored -> stored.turns().size()).orElse(0);
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
          for (String name : conversationNames(folder)) {
            Optional<String> owner =
                read(folder, name)
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
    Stored stored = readDocument(shared).orElse(null);
    Map<String, List<ConversationEntry>> byOwner = new LinkedHashMap<>();
    for (ConversationEntry turn : stored == null ? List.<ConversationEntry>of() : stored.turns()) {
      byOwner.computeIfAbsent(turn.ownerKey(), o -> new ArrayList<>()).add(turn);
    }
    for (Map.Entry<String, List<ConversationEntry>> entry : byOwner.entrySet()) {
      Path folder = ownerFolder(stored.agent(), OwnerKey.of(entry.getKey()));
      synchronized (lock(folder)) {
        String name = stripExtension(shared.getFileName().toString());
        List<ConversationEntry> merged = new ArrayList<>(entry.getValue());
        for (ConversationEntry later : read(folder, name).map(Stored::turns).orElse(List.of())) {
          if (merged.stream().noneMatch(t -> t.turnId().equals(later.turnId()))) {
            merged.add(later);
          }
        }
        try {
          rewrite(
              folder.resolve(name + LINES),
              new Stored(stored.agent(), stored.conversationId(), bounded(merged)));
          Files.deleteIfExists(folder.resolve(name + DOCUMENT));
        } catch (IOException e) {
          throw new UncheckedIOException("cannot move the conversation log file " + shared, e);
        }
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

  /**
   * The turns of one conversation file in the owner's folder: the append-only file, else an earlier
   * release's document (a crash between moving a document to lines and deleting it leaves both: the
   * lines hold its turns, and erasure deletes both).
   */
  private Optional<Stored> read(Path folder, String name) {
    Path file = folder.resolve(name + LINES);
    if (Files.isRegularFile(file)) {
      try {
        byte[] bytes = Files.readAllBytes(file);
        return Optional.of(parseLines(file, bytes, completeLength(bytes)));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the conversation log file " + file, e);
      }
    }
    return readDocument(folder.resolve(name + DOCUMENT));
  }

  /** The names (without extension) of the conversation files in an owner's folder. */
  private static Set<String> conversationNames(Path folder) {
    Set<String> names = new TreeSet<>();
    for (Path file : files(folder)) {
      String name = file.getFileName().toString();
      if (!name.startsWith(".") && (name.endsWith(LINES) || name.endsWith(DOCUMENT))) {
        names.add(stripExtension(name));
      }
    }
    return names;
  }

  private static String stripExtension(String name) {
    return name.substring(0, name.lastIndexOf('.'));
  }

  private Optional<Stored> readDocument(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    return Optional.of(ConversationFiles.read(file, "conversation log file", this::stored));
  }

  /** A file of an earlier release: one JSON document. */
  private Stored stored(JsonNode node) {
    AgentId agent = AgentId.of(node.path("agentId").asString());
    String conversationId = node.path("conversationId").asString();
    // a per-owner file names its owner once; a file of the first releases names it per turn
    String fileOwner = node.hasNonNull("ownerKey") ? node.get("ownerKey").asString() : null;
    List<ConversationEntry> turns = new ArrayList<>();
    for (JsonNode t : node.path("turns")) {
      turns.add(entry(t, fileOwner != null ? fileOwner : t.path("ownerKey").asString()));
    }
    return new Stored(agent, conversationId, turns);
  }

  private static ConversationEntry entry(JsonNode t, String ownerKey) {
    return new ConversationEntry(
        t.path("turnId").asString(),
        OwnerKey.of(ownerKey).value(),
        t.path("userMessage").asString(),
        t.path("assistantReply").asString(),
        t.path("triggerSource").asString(),
        Instant.parse(t.path("time").asString()));
  }

  /**
   * The head and the newest {@code maxTurns} turns of the first {@code end} bytes of an append-only
   * file (its complete lines).
   */
  private Stored parseLines(Path file, byte[] bytes, int end) {
    try {
      String text = new String(bytes, 0, end, StandardCharsets.UTF_8);
      int newline = text.indexOf('\n');
      if (newline < 0) {
        throw new IllegalStateException("no head line");
      }
      JsonNode head = json.readTree(text.substring(0, newline));
      String owner = head.path("ownerKey").asString();
      List<ConversationEntry> turns = new ArrayList<>();
      for (int from = newline + 1; from < text.length(); ) {
        int to = text.indexOf('\n', from);
        turns.add(entry(json.readTree(text.substring(from, to)), owner));
        from = to + 1;
      }
      return new Stored(
          AgentId.of(head.path("agentId").asString()),
          head.path("conversationId").asString(),
          bounded(turns));
    } catch (RuntimeException e) {
      throw new IllegalStateException("cannot read the conversation log file " + file, e);
    }
  }

  /** How many bytes of {@code bytes} are complete lines: a crash may have cut the last one. */
  static int completeLength(byte[] bytes) {
    int end = bytes.length;
    while (end > 0 && bytes[end - 1] != '\n') {
      end--;
    }
    return end;
  }

  /**
   * The file's complete bytes as a string of one char a byte (ISO-8859-1: a copy, no decoding), for
   * {@link String#indexOf}'s intrinsic search of the newlines and of a turn's line.
   */
  private static String raw(byte[] bytes, int end) {
    return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
  }

  private static int lineCount(String raw) {
    int lines = 0;
    for (int at = raw.indexOf('\n'); at >= 0; at = raw.indexOf('\n', at + 1)) {
      lines++;
    }
    return lines;
  }

  /**
   * Whether a complete line of the file is the turn {@code turnId}: every turn line is written as
   * {@code {"turnId":<id>,...}}, so a byte search finds it without parsing the file.
   */
  private boolean holdsTurn(String raw, String turnId) {
    byte[] needle =
        ("\n{\"turnId\":" + json.writeValueAsString(turnId) + ",").getBytes(StandardCharsets.UTF_8);
    return raw.contains(new String(needle, StandardCharsets.ISO_8859_1));
  }

  /** One turn's line, its id first ({@link #holdsTurn}), ended by a newline. */
  private String line(ConversationEntry t) {
    ObjectNode item = json.createObjectNode();
    item.put("turnId", t.turnId())
        .put("userMessage", t.userMessage())
        .put("assistantReply", t.assistantReply())
        .put("triggerSource", t.triggerSource())
        .put("time", t.time().toString());
    return json.writeValueAsString(item) + "\n";
  }

  /** Writes a whole append-only file atomically: its head and one line per turn (never empty). */
  private void rewrite(Path file, Stored stored) throws IOException {
    List<ConversationEntry> turns = stored.turns();
    ObjectNode head = json.createObjectNode();
    head.put("agentId", stored.agent().value())
        .put("ownerKey", turns.get(turns.size() - 1).ownerKey())
        .put("conversationId", stored.conversationId());
    StringBuilder text = new StringBuilder(json.writeValueAsString(head)).append('\n');
    turns.forEach(t -> text.append(line(t)));
    AtomicFiles.createParentDirectories(file);
    AtomicFiles.writeString(file, text.toString());
  }

  /**
   * Appends one line after the file's {@code end} complete bytes (cutting off an unfinished line a
   * crash left) and syncs the file's data.
   */
  private static void appendLine(Path file, int end, int length, String line) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      if (end < length) {
        channel.truncate(end);
      }
      ByteBuffer buffer = ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8));
      long at = end;
      while (buffer.hasRemaining()) {
        at += channel.write(buffer, at);
      }
      channel.force(false);
    }
  }
}
