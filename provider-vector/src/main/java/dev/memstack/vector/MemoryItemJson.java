package dev.memstack.vector;

import dev.memstack.vector.store.MemoryRecord;
import java.util.Locale;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The JSON of one memory in the answers of {@link VectorMemoryTools}. */
final class MemoryItemJson {

  private final JsonMapper json;

  MemoryItemJson(JsonMapper json) {
    this.json = json;
  }

  /** The mapper the items are made with, for the answers around them. */
  JsonMapper json() {
    return json;
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
    Object importance = record.extra().get(dev.memstack.vector.lifecycle.Lifecycle.IMPORTANCE);
    if (importance instanceof Number n) {
      item.put("importance", n.doubleValue());
    }
    if (dev.memstack.vector.lifecycle.Lifecycle.tracked(record.extra())) {
      item.put("weight", dev.memstack.vector.lifecycle.Lifecycle.weight(record.extra()));
    }
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
