package dev.memstack.vector.lucene;

import dev.memstack.vector.store.MemoryRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.ai.document.Document;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The write-ahead log of the embedded store: each {@code add} batch is one JSON line (records with
 * their unit vectors) appended and forced to disk before the call returns, so a batch is durable
 * without a Lucene commit (whose several fsyncs cost 25-150 ms here). The Lucene commit user data
 * names the log generation that follows the commit; on open the store replays that log (upserts by
 * id, so replaying twice is harmless) and commits. A line cut short by a crash was never
 * acknowledged and is skipped. Not thread-safe: the store calls it under its write lock.
 */
final class Translog implements AutoCloseable {

  /** One logged record: the memory and its unit vector. */
  record Entry(MemoryRecord record, float[] vector) {}

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<List<Map<String, Object>>> LINE = new TypeReference<>() {};

  private final Path file;
  private final FileChannel channel;
  private long records;

  private Translog(Path file, FileChannel channel) {
    this.file = file;
    this.channel = channel;
  }

  /** The log file of index {@code indexName}, generation {@code generation}. */
  static Path path(Path root, String indexName, long generation) {
    return root.resolve(indexName + ".translog-" + generation);
  }

  /** Opens (creating if needed) a log for appending. */
  static Translog open(Path file) throws IOException {
    FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    return new Translog(file, channel);
  }

  Path file() {
    return file;
  }

  /** Records appended since this log was opened. */
  long records() {
    return records;
  }

  /** Appends one batch and forces it to disk. */
  void append(List<Entry> entries) throws IOException {
    List<Map<String, Object>> line = new ArrayList<>(entries.size());
    for (Entry entry : entries) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("id", entry.record().id());
      json.put("text", entry.record().text());
      json.put("metadata", entry.record().metadata());
      json.put("vector", encode(entry.vector()));
      line.add(json);
    }
    byte[] bytes = (JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8);
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
    channel.force(false);
    records += entries.size();
  }

  /** Every complete entry of a log file, in order; none when the file does not exist. */
  static List<Entry> read(Path file) throws IOException {
    List<Entry> entries = new ArrayList<>();
    for (List<Map<String, Object>> batch : JsonLines.read(file, LINE)) {
      for (Map<String, Object> json : batch) {
        @SuppressWarnings("unchecked")
        Map<String, Object> metadata =
            new LinkedHashMap<>((Map<String, Object>) json.get("metadata"));
        metadata.replaceAll((k, v) -> v instanceof Integer i ? i.longValue() : v);
        Document document =
            Document.builder()
                .id((String) json.get("id"))
                .text((String) json.get("text"))
                .metadata(metadata)
                .build();
        entries.add(
            new Entry(MemoryRecord.fromDocument(document), decode((String) json.get("vector"))));
      }
    }
    return entries;
  }

  private static String encode(float[] vector) {
    ByteBuffer bytes = ByteBuffer.allocate(vector.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    bytes.asFloatBuffer().put(vector);
    return Base64.getEncoder().encodeToString(bytes.array());
  }

  private static float[] decode(String text) {
    ByteBuffer bytes =
        ByteBuffer.wrap(Base64.getDecoder().decode(text)).order(ByteOrder.LITTLE_ENDIAN);
    float[] vector = new float[bytes.remaining() / 4];
    bytes.asFloatBuffer().get(vector);
    return vector;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
