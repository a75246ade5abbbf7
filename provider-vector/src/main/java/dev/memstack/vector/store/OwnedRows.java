package dev.memstack.vector.store;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The head every per-owner row of the vector provider's sidecars starts with, as a flat map of
 * strings ({@code id}, {@code agent}, and {@code owner} for a personal row): one spelling for the
 * history log and the contradiction queue, so their file lines read alike.
 */
public final class OwnedRows {

  private OwnedRows() {}

  /**
   * A new ordered map holding {@code id}, {@code agent} and, when not {@code null}, {@code owner}.
   */
  public static Map<String, String> head(String id, AgentId agent, OwnerKey owner) {
    Map<String, String> map = new LinkedHashMap<>();
    map.put("id", id);
    map.put("agent", agent.value());
    if (owner != null) {
      map.put("owner", owner.value());
    }
    return map;
  }

  /** The {@code owner} of a row read back, or {@code null} for a shared one. */
  public static OwnerKey owner(Map<String, ?> row) {
    Object owner = row.get("owner");
    return owner == null ? null : OwnerKey.of(owner.toString());
  }
}
