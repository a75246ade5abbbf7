package dev.memstack.vector.types;

import dev.memstack.spi.AgentId;
import dev.memstack.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The embedded store's custom types: one small JSON file in the store's folder ({@code
 * <root>/types.json}: {@code {"agents": {agent: [{key, name, description, icon}]}}}), held in
 * memory and rewritten whole on each change with {@link AtomicFiles} (a crash leaves the old file
 * or the new one). Only the process that holds the embedded store writes it; changes are serialised
 * here.
 */
public final class FileCustomTypeStore implements CustomTypeStore {

  static final String FILE = "types.json";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Path file;
  private final Map<String, Map<String, MemoryType>> byAgent = new TreeMap<>();

  private FileCustomTypeStore(Path file) {
    this.file = file;
  }

  /**
   * Reads {@code <root>/types.json} (none yet: no custom types).
   *
   * @throws UncheckedIOException when the file cannot be read or is not this store's JSON
   */
  public static FileCustomTypeStore open(Path root) {
    FileCustomTypeStore store = new FileCustomTypeStore(root.resolve(FILE));
    try {
      java.util.Optional<String> text = AtomicFiles.load(store.file);
      if (text.isPresent()) {
        store.read(JSON.readTree(text.get()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("custom memory types " + store.file + ": " + e, e);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "custom memory types " + store.file + " cannot be read: " + e.getMessage(), e);
    }
    return store;
  }

  private void read(JsonNode root) {
    JsonNode agents = root.path("agents");
    for (Map.Entry<String, JsonNode> agent : agents.properties()) {
      Map<String, MemoryType> types = new TreeMap<>();
      for (JsonNode type : agent.getValue()) {
        MemoryType read =
            MemoryType.custom(
                type.path("key").asString(),
                type.path("name").asString(),
                text(type, "description"),
                text(type, "icon"));
        types.put(read.key(), read);
      }
      if (!types.isEmpty()) {
        byAgent.put(agent.getKey(), types);
      }
    }
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asString();
  }

  @Override
  public synchronized List<MemoryType> list(AgentId agent) {
    return List.copyOf(byAgent.getOrDefault(agent.value(), Map.of()).values());
  }

  @Override
  public synchronized Optional<MemoryType> find(AgentId agent, String key) {
    return Optional.ofNullable(byAgent.getOrDefault(agent.value(), Map.of()).get(key));
  }

  @Override
  public synchronized Outcome create(AgentId agent, MemoryType type, int limit) {
    Map<String, MemoryType> types = byAgent.getOrDefault(agent.value(), Map.of());
    if (types.containsKey(type.key())) {
      return Outcome.EXISTS;
    }
    if (types.size() >= limit) {
      return Outcome.FULL;
    }
    Map<String, Map<String, MemoryType>> next = copy();
    next.computeIfAbsent(agent.value(), a -> new TreeMap<>()).put(type.key(), type);
    write(next);
    return Outcome.CREATED;
  }

  @Override
  public synchronized boolean delete(AgentId agent, String key) {
    if (!byAgent.getOrDefault(agent.value(), Map.of()).containsKey(key)) {
      return false;
    }
    Map<String, Map<String, MemoryType>> next = copy();
    next.get(agent.value()).remove(key);
    next.values().removeIf(Map::isEmpty);
    write(next);
    return true;
  }

  private Map<String, Map<String, MemoryType>> copy() {
    Map<String, Map<String, MemoryType>> copy = new TreeMap<>();
    byAgent.forEach((agent, types) -> copy.put(agent, new TreeMap<>(types)));
    return copy;
  }

  /** Writes the file first and only then changes what readers see: a failed write changes none. */
  private void write(Map<String, Map<String, MemoryType>> next) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode agents = root.putObject("agents");
    next.forEach(
        (agent, types) -> {
          ArrayNode list = agents.putArray(agent);
          for (MemoryType type : types.values()) {
            type.putInto(list.addObject());
          }
        });
    try {
      AtomicFiles.write(
          file,
          JSON.writerWithDefaultPrettyPrinter()
              .writeValueAsString(root)
              .getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("custom memory types " + file + ": " + e, e);
    }
    byAgent.clear();
    byAgent.putAll(next);
  }
}
