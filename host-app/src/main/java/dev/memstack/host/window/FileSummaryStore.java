package dev.memstack.host.window;

import dev.memstack.host.conversation.ConversationFiles;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.support.Digests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The on-disk {@link SummaryStore}: one JSON file per agent, owner and conversation under {@code
 * <memstack.data-dir>/window-summaries/<agent>/<sha-256 of the owner key>/<sha-256 of the
 * conversation id>.json}, rewritten atomically. Owner erasure deletes the owner's folder under
 * every agent.
 */
public final class FileSummaryStore implements SummaryStore {

  private final Path root;
  private final JsonMapper json = JsonMapper.builder().build();
  private final ConcurrentHashMap<Path, Object> locks = new ConcurrentHashMap<>();

  public FileSummaryStore(Path dataDir) {
    this.root = dataDir.toAbsolutePath().normalize().resolve("window-summaries");
  }

  @Override
  public List<StoredSummary> summaries(
      AgentId agent, OwnerKey owner, String conversationId, Instant notBefore) {
    Path file = file(agent, owner, conversationId);
    synchronized (lock(file.getParent())) {
      return read(file, agent, owner, conversationId).stream()
          .filter(s -> !s.created().isBefore(notBefore))
          .sorted(Comparator.comparing(StoredSummary::created).reversed())
          .toList();
    }
  }

  @Override
  public void put(StoredSummary summary, Instant expiredBefore) {
    Path file = file(summary.agent(), summary.owner(), summary.conversationId());
    synchronized (lock(file.getParent())) {
      List<StoredSummary> kept = new ArrayList<>();
      for (StoredSummary s :
          read(file, summary.agent(), summary.owner(), summary.conversationId())) {
        if (!s.created().isBefore(expiredBefore)) {
          kept.add(s);
        }
      }
      if (kept.stream()
          .noneMatch(
              s ->
                  s.lastTurnId().equals(summary.lastTurnId()) && s.hash().equals(summary.hash()))) {
        kept.add(summary);
      }
      write(file, summary, kept);
    }
  }

  @Override
  public long forget(OwnerKey owner) {
    long removed = 0;
    for (Path agentFolder : list(root)) {
      Path folder = agentFolder.resolve(Digests.sha256Hex(owner.value()));
      synchronized (lock(folder)) {
        if (!Files.isDirectory(folder)) {
          continue;
        }
        for (Path file : list(folder)) {
          removed += count(file);
        }
        deleteTree(folder);
      }
    }
    return removed;
  }

  @Override
  public void forgetConversation(AgentId agent, OwnerKey owner, String conversationId) {
    Path file = file(agent, owner, conversationId);
    synchronized (lock(file.getParent())) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete the summaries " + file, e);
      }
    }
  }

  private Path file(AgentId agent, OwnerKey owner, String conversationId) {
    return root.resolve(agent.value())
        .resolve(Digests.sha256Hex(owner.value()))
        .resolve(Digests.sha256Hex(conversationId) + ".json");
  }

  private Object lock(Path folder) {
    return locks.computeIfAbsent(folder, f -> new Object());
  }

  private long count(Path file) {
    if (!file.getFileName().toString().endsWith(".json")) {
      return 0;
    }
    try {
      return json.readTree(Files.readString(file, StandardCharsets.UTF_8)).path("summaries").size();
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private List<StoredSummary> read(
      Path file, AgentId agent, OwnerKey owner, String conversationId) {
    if (!Files.isRegularFile(file)) {
      return List.of();
    }
    return ConversationFiles.read(
        file,
        "summary file",
        node -> {
          List<StoredSummary> summaries = new ArrayList<>();
          for (JsonNode s : node.path("summaries")) {
            summaries.add(
                new StoredSummary(
                    agent,
                    owner,
                    conversationId,
                    s.path("lastTurnId").asString(),
                    s.path("hash").asString(),
                    s.path("text").asString(),
                    s.path("coversTurns").asInt(),
                    Instant.parse(s.path("created").asString())));
          }
          return summaries;
        });
  }

  private void write(Path file, StoredSummary key, List<StoredSummary> summaries) {
    ConversationFiles.Head head =
        new ConversationFiles.Head(key.agent(), key.owner().value(), key.conversationId());
    ConversationFiles.write(
        file,
        "summary file",
        head,
        "summaries",
        summaries,
        (item, s) ->
            item.put("lastTurnId", s.lastTurnId())
                .put("hash", s.hash())
                .put("text", s.text())
                .put("coversTurns", s.coversTurns())
                .put("created", s.created().toString()));
  }

  private static List<Path> list(Path folder) {
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    try (Stream<Path> list = Files.list(folder)) {
      return list.toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the summary folder " + folder, e);
    }
  }

  private static void deleteTree(Path folder) {
    try (Stream<Path> walk = Files.walk(folder)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot erase the summaries under " + folder, e);
    }
  }
}
