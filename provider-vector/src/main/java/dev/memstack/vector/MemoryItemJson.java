package dev.memstack.vector;

import dev.memstack.vector.lifecycle.Lifecycle;
import dev.memstack.vector.store.MemoryRecord;
import java.util.Locale;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON of one memory in the answers of {@link VectorMemoryTools}: its fields, its lifecycle
 * {@code importance} (when it has one) and {@code weight} (1 when the lifecycle does not track it)
 * and, in the lists and reads of an owner, that owner's {@code trust} in it ({@link #withTrust}).
 */
final class MemoryItemJson {

  private final JsonMapper json;

  MemoryItemJson(JsonMapper json) {
    this.json = json;
  }

  /** The mapper the items are made with, for the answers around them. */
  JsonMapper json() {
    return json;
  }

  /**
   * Puts {@code owner}'s trust in each item (by its {@code id}), in (−1, 1), 0 without feedback;
   * nothing without an owner (trust is an owner's own).
   */
  void withTrust(VectorTrust trust, dev.memstack.spi.OwnerKey owner, Iterable<ObjectNode> items) {
    if (owner == null) {
      return;
    }
    java.util.List<String> ids = new java.util.ArrayList<>();
    items.forEach(item -> ids.add(item.get("id").asString()));
    java.util.Map<String, Double> values = trust.values(owner, ids);
    items.forEach(
        item ->
            item.put(
                "trust",
                Math.round(values.getOrDefault(item.get("id").asString(), 0.0) * 10_000)
                    / 10_000.0));
  }

  ObjectNode of(MemoryRecord record, Double score) {
    ObjectNode item = json.createObjectNode();
    item.put("id", record.id());
    item.put("text", MemoryTexts.undated(record.text()));
    if (score != null) {
      item.put("score", Math.round(score * 10_000) / 10_000.0);
    }
    item.put("scope", record.scope().name().toLowerCase(Locale.ROOT));
    if (record.owner() != null) {
      item.put("owner", record.owner().value());
    }
    Object name = record.extra().get(MemoryTexts.NAME);
    if (name != null) {
      item.put("name", name.toString());
    }
    item.put("type", record.type());
    item.put("status", record.status().wireName());
    item.put("createdAt", record.createdAt().toString());
    item.put("updatedAt", MemoryAdminTools.updatedAt(record).toString());
    Object importance = record.extra().get(Lifecycle.IMPORTANCE);
    if (importance != null && !importance.toString().isBlank()) {
      // stored as the enum's name (CRITICAL, HIGH, NORMAL, TEMPORAL); shown in lower case
      item.put("importance", importance.toString().toLowerCase(Locale.ROOT));
    }
    // what ranking multiplies by: 1 for a record the lifecycle does not track
    item.put("weight", Lifecycle.weight(record.extra()));
    MemoryTexts.origin(record).forEach(item::put);
    Object supersedes = record.extra().get(RememberTool.SUPERSEDES);
    if (supersedes != null && !supersedes.toString().isBlank()) {
      ArrayNode ids = item.putArray("supersedes");
      for (String id : supersedes.toString().split(",")) {
        ids.add(id);
      }
    }
    Object supersededBy = record.extra().get(RememberTool.SUPERSEDED_BY);
    if (supersededBy != null) {
      item.put("supersededBy", supersededBy.toString());
    }
    return item;
  }
}
