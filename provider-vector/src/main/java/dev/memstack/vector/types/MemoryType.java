package dev.memstack.vector.types;

import dev.memstack.vector.store.MemoryRecord;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * One memory type as agents see it in {@code memory_list_types}.
 *
 * @param key the type as stored on records, upper case ({@link MemoryRecord#normalizeType})
 * @param name a short display name, never blank, at most {@value #MAX_NAME} characters
 * @param description one line on what the type is for, or {@code null}; at most {@value
 *     #MAX_DESCRIPTION} characters
 * @param icon an icon name or emoji for user interfaces, or {@code null}; at most {@value
 *     #MAX_ICON} characters
 * @param system whether it is built in (then it cannot be deleted)
 */
public record MemoryType(String key, String name, String description, String icon, boolean system) {

  public static final int MAX_NAME = 100;
  public static final int MAX_DESCRIPTION = 500;
  public static final int MAX_ICON = 64;

  /** The types every agent has, in the order they are listed. */
  public static final List<MemoryType> BUILT_IN =
      List.of(
          builtIn("FACT", "Fact", "Something true about the owner, a project or the world"),
          builtIn("DECISION", "Decision", "A choice that was made, and what was chosen"),
          builtIn("PREFERENCE", "Preference", "How the owner likes things to be done"),
          builtIn("TASK_PROGRESS", "Task progress", "Where a task stands: done, next or blocked"),
          builtIn("REFERENCE", "Reference", "A pointer to an outside resource: link, doc, ticket"),
          builtIn("RAW", "Raw turn", "A conversation message stored as it was said"));

  public MemoryType {
    key = MemoryRecord.normalizeType(key);
    Objects.requireNonNull(name, "name");
    name = name.strip();
    if (name.isEmpty() || name.length() > MAX_NAME) {
      throw new IllegalArgumentException(
          "type " + key + ": name must be 1 to " + MAX_NAME + " characters");
    }
    description = optional(key, "description", description, MAX_DESCRIPTION);
    icon = optional(key, "icon", icon, MAX_ICON);
  }

  /**
   * Puts the type's {@code key}, {@code name} and, when set, {@code description} and {@code icon}
   * into {@code node}: its form in the custom types file and in the tools' answers.
   *
   * @return {@code node}
   */
  public ObjectNode putInto(ObjectNode node) {
    node.put("key", key);
    node.put("name", name);
    if (description != null) {
      node.put("description", description);
    }
    if (icon != null) {
      node.put("icon", icon);
    }
    return node;
  }

  /** A custom type ({@code system} false). */
  public static MemoryType custom(String key, String name, String description, String icon) {
    return new MemoryType(key, name, description, icon, false);
  }

  /** The built-in type of this key, or {@code null}. */
  public static MemoryType builtIn(String key) {
    for (MemoryType type : BUILT_IN) {
      if (type.key().equals(key)) {
        return type;
      }
    }
    return null;
  }

  private static MemoryType builtIn(String key, String name, String description) {
    return new MemoryType(key, name, description, null, true);
  }

  private static String optional(String key, String field, String value, int max) {
    if (value == null || value.isBlank()) {
      return null;
    }
    String stripped = value.strip();
    if (stripped.length() > max) {
      throw new IllegalArgumentException(
          "type " + key + ": " + field + " must be at most " + max + " characters");
    }
    return stripped;
  }
}
