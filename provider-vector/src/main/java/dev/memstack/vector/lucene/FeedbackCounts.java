package dev.memstack.vector.lucene;

import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The embedded store's feedback counts: owner → record id → count, held in memory and made durable
 * by an append-only file of changes ({@code <root>/feedback.jsonl}, one JSON object a line, forced
 * to disk before a change returns). Kept apart from the Lucene documents so that a shared record
 * carries no owner's counts and an update of a count does not rewrite a document and its vector. On
 * open the file is replayed and rewritten compacted (one line per owner, counts of records that no
 * longer exist dropped), atomically; a line cut short by a crash was never acknowledged and is
 * skipped. Changes are serialised by the store's write lock; reads need no lock.
 *
 * <p>Lines: {@code {"add": owner, "counts": {id: n}}} adds, {@code {"forget": owner}} removes an
 * owner's counts, {@code {"drop": [id]}} removes the counts of deleted records.
 */
final class FeedbackCounts implements AutoCloseable {

  static final String FILE = "feedback.jsonl";

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<Map<String, Object>> LINE = new TypeReference<>() {};

  private final Map<String, Map<String, Long>> byOwner = new ConcurrentHashMap<>();
  private final FileChannel channel;

  private FeedbackCounts(FileChannel channel) {
    this.channel = channel;
  }

  /**
   * Replays and compacts the file under {@code root}, keeping counts of the records {@code exists}
   * accepts, and opens it for appending.
   */
  static FeedbackCounts open(Path root, Predicate<String> exists) throws IOException {
    Path file = root.resolve(FILE);
    Map<String, Map<String, Long>> counts = replay(file);
    counts.values().forEach(ids -> ids.keySet().removeIf(id -> !exists.test(id)));
    counts.values().removeIf(Map::isEmpty);
    AtomicFiles.deleteLeftovers(file);
    List<String> lines = new ArrayList<>();
    for (Map.Entry<String, Map<String, Long>> owner : counts.entrySet()) {
      lines.add(JSON.writeValueAsString(Map.of("add", owner.getKey(), "counts", owner.getValue())));
    }
    AtomicFiles.writeLines(file, lines);
    FeedbackCounts feedback =
        new FeedbackCounts(
            FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
    counts.forEach((owner, ids) -> feedback.byOwner.put(owner, new ConcurrentHashMap<>(ids)));
    return feedback;
  }

  private static Map<String, Map<String, Long>> replay(Path file) throws IOException {
    Map<String, Map<String, Long>> counts = new LinkedHashMap<>();
    for (Map<String, Object> line : JsonLines.read(file, LINE)) {
      if (line.get("add") instanceof String owner && line.get("counts") instanceof Map<?, ?> m) {
        Map<String, Long> ids = counts.computeIfAbsent(owner, o -> new LinkedHashMap<>());
        m.forEach(
            (id, n) -> {
              if (id instanceof String key && n instanceof Number number) {
                ids.merge(key, number.longValue(), FeedbackCounts::saturatedSum);
              }
            });
      } else if (line.get("forget") instanceof String owner) {
        counts.remove(owner);
      } else if (line.get("drop") instanceof List<?> ids) {
        counts.values().forEach(owned -> owned.keySet().removeAll(ids));
      }
    }
    return counts;
  }

  /** Adds one to each of the owner's {@code ids}; the caller holds the store's write lock. */
  void add(String owner, Collection<String> ids) throws IOException {
    if (ids.isEmpty()) {
      return;
    }
    Map<String, Long> ones = new LinkedHashMap<>();
    ids.forEach(id -> ones.put(id, 1L));
    write(channel, Map.of("add", owner, "counts", ones));
    Map<String, Long> owned = byOwner.computeIfAbsent(owner, o -> new ConcurrentHashMap<>());
    ones.keySet().forEach(id -> owned.merge(id, 1L, FeedbackCounts::saturatedSum));
  }

  /** Removes the owner's counts; returns how many records had one. */
  long forget(String owner) throws IOException {
    Map<String, Long> owned = byOwner.get(owner);
    if (owned == null) {
      return 0;
    }
    write(channel, Map.of("forget", owner));
    byOwner.remove(owner);
    return owned.size();
  }

  /** Removes every owner's counts of these records (they were deleted). */
  void drop(Collection<String> ids) throws IOException {
    if (ids.isEmpty() || byOwner.values().stream().noneMatch(o -> hasAny(o, ids))) {
      return;
    }
    write(channel, Map.of("drop", List.copyOf(ids)));
    byOwner.values().forEach(owned -> owned.keySet().removeAll(ids));
  }

  /** Whether any owner has a count at all. */
  boolean isEmpty() {
    return byOwner.isEmpty();
  }

  /** The owner's counts of those {@code ids} that have one. */
  Map<String, Long> counts(String owner, Collection<String> ids) {
    Map<String, Long> owned = byOwner.get(owner);
    if (owned == null) {
      return Map.of();
    }
    Map<String, Long> out = new LinkedHashMap<>();
    for (String id : ids) {
      Long n = owned.get(id);
      if (n != null) {
        out.put(id, n);
      }
    }
    return out;
  }

  private static boolean hasAny(Map<String, Long> owned, Collection<String> ids) {
    for (String id : ids) {
      if (owned.containsKey(id)) {
        return true;
      }
    }
    return false;
  }

  private static long saturatedSum(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  private static void write(FileChannel out, Map<String, Object> line) throws IOException {
    ByteBuffer buffer =
        ByteBuffer.wrap((JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8));
    while (buffer.hasRemaining()) {
      out.write(buffer);
    }
    out.force(false);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
