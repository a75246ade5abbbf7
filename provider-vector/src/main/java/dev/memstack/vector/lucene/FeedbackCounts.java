package dev.memstack.vector.lucene;

import dev.memstack.support.AtomicFiles;
import dev.memstack.vector.store.Trust;
import dev.memstack.vector.store.TrustChange;
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
 * The embedded store's feedback counts and trust: owner → record id → {@link Trust}, held in memory
 * and made durable by an append-only file of changes ({@code <root>/feedback.jsonl}, one JSON
 * object a line, forced to disk before a change returns). Kept apart from the Lucene documents so
 * that a shared record carries no owner's rows and a change of one does not rewrite a document and
 * its vector. On open the file is replayed and rewritten compacted (one line per owner, rows of
 * records that no longer exist dropped), atomically; a line cut short by a crash was never
 * acknowledged and is skipped. Changes are serialised by the store's write lock; reads need no
 * lock.
 *
 * <p>Lines: {@code {"set": owner, "rows": {id: {"uses", "wrongs", "sum", "at", "hidden"}}}} sets
 * rows as they are after a change, {@code {"forget": owner}} removes an owner's rows, {@code
 * {"drop": [id]}} removes the rows of deleted records. Files written before trust existed hold
 * {@code {"add": owner, "counts": {id: n}}} lines (uses added, trust 0); they are still read, and
 * the compaction on open rewrites them as {@code set} lines.
 */
final class FeedbackCounts implements AutoCloseable {

  static final String FILE = "feedback.jsonl";

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<Map<String, Object>> LINE = new TypeReference<>() {};

  private final Map<String, Map<String, Trust>> byOwner = new ConcurrentHashMap<>();
  private final FileChannel channel;

  private FeedbackCounts(FileChannel channel) {
    this.channel = channel;
  }

  /**
   * Replays and compacts the file under {@code root}, keeping rows of the records {@code exists}
   * accepts, and opens it for appending.
   */
  static FeedbackCounts open(Path root, Predicate<String> exists) throws IOException {
    Path file = root.resolve(FILE);
    Map<String, Map<String, Trust>> rows = replay(file);
    rows.values().forEach(ids -> ids.keySet().removeIf(id -> !exists.test(id)));
    rows.values().removeIf(Map::isEmpty);
    AtomicFiles.deleteLeftovers(file);
    List<String> lines = new ArrayList<>();
    for (Map.Entry<String, Map<String, Trust>> owner : rows.entrySet()) {
      lines.add(JSON.writeValueAsString(setLine(owner.getKey(), owner.getValue())));
    }
    AtomicFiles.writeLines(file, lines);
    FeedbackCounts feedback =
        new FeedbackCounts(
            FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
    rows.forEach((owner, ids) -> feedback.byOwner.put(owner, new ConcurrentHashMap<>(ids)));
    return feedback;
  }

  private static Map<String, Map<String, Trust>> replay(Path file) throws IOException {
    Map<String, Map<String, Trust>> rows = new LinkedHashMap<>();
    for (Map<String, Object> line : JsonLines.read(file, LINE)) {
      if (line.get("set") instanceof String owner && line.get("rows") instanceof Map<?, ?> m) {
        Map<String, Trust> ids = rows.computeIfAbsent(owner, o -> new LinkedHashMap<>());
        m.forEach(
            (id, row) -> {
              if (id instanceof String key && row instanceof Map<?, ?> fields) {
                ids.put(key, trust(fields));
              }
            });
      } else if (line.get("add") instanceof String owner
          && line.get("counts") instanceof Map<?, ?> m) {
        // the format before trust: counts only
        Map<String, Trust> ids = rows.computeIfAbsent(owner, o -> new LinkedHashMap<>());
        m.forEach(
            (id, n) -> {
              if (id instanceof String key && n instanceof Number number) {
                Trust old = ids.getOrDefault(key, Trust.NONE);
                ids.put(
                    key,
                    new Trust(
                        saturatedSum(old.uses(), number.longValue()),
                        old.wrongs(),
                        old.sum(),
                        old.at(),
                        old.hidden()));
              }
            });
      } else if (line.get("forget") instanceof String owner) {
        rows.remove(owner);
      } else if (line.get("drop") instanceof List<?> ids) {
        rows.values().forEach(owned -> owned.keySet().removeAll(ids));
      }
    }
    return rows;
  }

  private static Trust trust(Map<?, ?> fields) {
    return new Trust(
        fields.get("uses") instanceof Number n ? Math.max(0, n.longValue()) : 0,
        fields.get("wrongs") instanceof Number n ? Math.max(0, n.longValue()) : 0,
        fields.get("sum") instanceof Number n && Double.isFinite(n.doubleValue())
            ? n.doubleValue()
            : 0,
        fields.get("at") instanceof Number n ? n.longValue() : 0,
        Boolean.TRUE.equals(fields.get("hidden")));
  }

  private static Map<String, Object> setLine(String owner, Map<String, Trust> rows) {
    Map<String, Object> out = new LinkedHashMap<>();
    rows.forEach(
        (id, t) -> {
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("uses", t.uses());
          row.put("wrongs", t.wrongs());
          row.put("sum", t.sum());
          row.put("at", t.at());
          row.put("hidden", t.hidden());
          out.put(id, row);
        });
    return Map.of("set", owner, "rows", out);
  }

  /**
   * Applies {@code change} to each of the owner's {@code ids}; the caller holds the store's write
   * lock. Returns the rows as they are after it.
   */
  Map<String, Trust> change(String owner, Collection<String> ids, TrustChange change)
      throws IOException {
    if (ids.isEmpty()) {
      return Map.of();
    }
    Map<String, Trust> owned = byOwner.get(owner);
    Map<String, Trust> changed = new LinkedHashMap<>();
    for (String id : ids) {
      Trust old = owned == null ? Trust.NONE : owned.getOrDefault(id, Trust.NONE);
      changed.put(id, old.apply(change));
    }
    set(owner, changed);
    return changed;
  }

  /** Hides the record from the owner's recall, or shows it; whether the owner had a row of it. */
  boolean hide(String owner, String id, boolean hidden) throws IOException {
    Map<String, Trust> owned = byOwner.get(owner);
    Trust row = owned == null ? null : owned.get(id);
    if (row == null) {
      return false;
    }
    if (row.hidden() != hidden) {
      set(owner, Map.of(id, row.hidden(hidden)));
    }
    return true;
  }

  private void set(String owner, Map<String, Trust> changed) throws IOException {
    write(channel, setLine(owner, changed));
    byOwner.computeIfAbsent(owner, o -> new ConcurrentHashMap<>()).putAll(changed);
  }

  /** Removes the owner's rows; returns how many records had one. */
  long forget(String owner) throws IOException {
    Map<String, Trust> owned = byOwner.get(owner);
    if (owned == null) {
      return 0;
    }
    write(channel, Map.of("forget", owner));
    byOwner.remove(owner);
    return owned.size();
  }

  /** Removes every owner's rows of these records (they were deleted). */
  void drop(Collection<String> ids) throws IOException {
    if (ids.isEmpty() || byOwner.values().stream().noneMatch(o -> hasAny(o, ids))) {
      return;
    }
    write(channel, Map.of("drop", List.copyOf(ids)));
    byOwner.values().forEach(owned -> owned.keySet().removeAll(ids));
  }

  /** Whether any owner has a row at all. */
  boolean isEmpty() {
    return byOwner.isEmpty();
  }

  /** The owner's rows of those {@code ids} that have one. */
  Map<String, Trust> rows(String owner, Collection<String> ids) {
    Map<String, Trust> owned = byOwner.get(owner);
    if (owned == null) {
      return Map.of();
    }
    Map<String, Trust> out = new LinkedHashMap<>();
    for (String id : ids) {
      Trust row = owned.get(id);
      if (row != null) {
        out.put(id, row);
      }
    }
    return out;
  }

  private static boolean hasAny(Map<String, Trust> owned, Collection<String> ids) {
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
