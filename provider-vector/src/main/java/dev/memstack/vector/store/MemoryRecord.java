package dev.memstack.vector.store;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.support.Require;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.springframework.ai.document.Document;

/**
 * One memory record and its mapping to and from a Spring AI {@link Document} with the {@link
 * MemoryVectorStore} metadata conventions. Stores call {@link #fromDocument} in {@code add} to
 * check the metadata.
 *
 * @param id the document id, never blank
 * @param text what is embedded and indexed, never blank
 * @param agent the agent that wrote it
 * @param owner the owner of a PERSONAL record; {@code null} for TEAM and GLOBAL records
 * @param scope who may recall it
 * @param status its lifecycle state
 * @param type FACT, DECISION, PREFERENCE, TASK_PROGRESS, REFERENCE, RAW or a custom upper-case name
 * @param conversation the conversation it came from, or {@code null}
 * @param turn the turn it came from, or {@code null}
 * @param createdAt when it was written (millisecond precision)
 * @param extra other metadata (string, number or boolean values), stored but not filterable
 */
public record MemoryRecord(
    String id,
    String text,
    AgentId agent,
    OwnerKey owner,
    Scope scope,
    MemoryStatus status,
    String type,
    String conversation,
    String turn,
    Instant createdAt,
    Map<String, Object> extra) {

  private static final Pattern DATE_PREFIX = Pattern.compile("^\\[\\d{4}-\\d{2}-\\d{2}\\] ");

  /** Memory types named by the seeds, plus RAW for turns stored as they were said. */
  public static final Set<String> KNOWN_TYPES =
      Set.of("FACT", "DECISION", "PREFERENCE", "TASK_PROGRESS", "REFERENCE", "RAW");

  private static final Pattern TYPE = Pattern.compile("[A-Z][A-Z0-9_]{0,31}");

  /** The keys the store sets itself: every filter key and the vector's model. */
  private static final Set<String> RESERVED =
      java.util.stream.Stream.concat(
              MemoryVectorStore.FILTER_KEYS.stream(),
              java.util.stream.Stream.of(MemoryVectorStore.MODEL))
          .collect(java.util.stream.Collectors.toUnmodifiableSet());

  public MemoryRecord {
    Require.nonNull(
        "id text agent scope status createdAt", id, text, agent, scope, status, createdAt);
    if (id.isBlank()) {
      throw new IllegalArgumentException("record id must not be blank");
    }
    if (text.isBlank()) {
      throw new IllegalArgumentException("record " + id + ": text must not be blank");
    }
    if (scope == Scope.PERSONAL && owner == null) {
      throw new IllegalArgumentException("record " + id + ": a PERSONAL record needs an owner");
    }
    if (scope != Scope.PERSONAL && owner != null) {
      throw new IllegalArgumentException(
          "record " + id + ": only PERSONAL records have an owner, this one is " + scope);
    }
    type = normalizeType(type);
    createdAt = Instant.ofEpochMilli(createdAt.toEpochMilli());
    Map<String, Object> copy = new LinkedHashMap<>();
    if (extra != null) {
      extra.forEach(
          (key, value) -> {
            if (RESERVED.contains(key)) {
              throw new IllegalArgumentException(
                  "record " + id + ": extra metadata must not use the reserved key " + key);
            }
            if (value != null) {
              copy.put(key, checkExtraValue(key, value));
            }
          });
    }
    extra = Map.copyOf(copy);
  }

  /**
   * Upper-cases a memory type and checks it is {@code [A-Z][A-Z0-9_]{0,31}}.
   *
   * @throws IllegalArgumentException for a missing or malformed type
   */
  public static String normalizeType(String type) {
    if (type == null || type.isBlank()) {
      throw new IllegalArgumentException("type is required");
    }
    String upper = type.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    if (!TYPE.matcher(upper).matches()) {
      throw new IllegalArgumentException(
          "type must be FACT, DECISION, PREFERENCE, TASK_PROGRESS, REFERENCE, RAW or a custom name"
              + " of letters, digits and underscores (at most 32), got: "
              + type);
    }
    return upper;
  }

  private static Object checkExtraValue(String key, Object value) {
    if (value instanceof String || value instanceof Boolean) {
      return value;
    }
    if (value instanceof Integer || value instanceof Long || value instanceof Short) {
      return ((Number) value).longValue();
    }
    if (value instanceof Number n) {
      return n.doubleValue();
    }
    throw new IllegalArgumentException(
        "metadata '" + key + "' must be a string, number or boolean, got " + value.getClass());
  }

  /**
   * Metadata key of a record's context: text embedded together with the record (key expansion, e.g.
   * the message before it in its conversation) but never returned as the record's text and not
   * keyword-indexed.
   */
  public static final String CONTEXT = "context";

  /**
   * Metadata key: the id of the turn before this record's turn in its conversation, as delivered
   * (absent for a conversation's first turn since the provider started); ranking lifts conversation
   * neighbours by it.
   */
  public static final String PREVIOUS_TURN = "previous_turn";

  /**
   * What the store embeds: the context, when there is one, on the line before the text. Recall
   * finds a message by what it answered ("Yes, twice!" after "Have you been to Turks and Caicos?")
   * and still returns the message alone. The date prefix stays in: embedding without it was
   * measured on REALTALK and changed nothing (stack 50.3 / 57.3 against 50.3 / 57.1 @5 / @10).
   */
  public String embeddingText() {
    Object context = extra.get(CONTEXT);
    return embeddingText(text, context instanceof String c ? c : null);
  }

  /** What the store embeds for a stored text and its context ({@code null} for none). */
  public static String embeddingText(String text, String context) {
    return context == null || context.isBlank() ? text : context + "\n" + text;
  }

  /** {@code text} without the {@code [yyyy-MM-dd] } prefix stored records start with. */
  public static String undated(String text) {
    return DATE_PREFIX.matcher(text).replaceFirst("");
  }

  /**
   * Metadata key: when the record last changed after it was written (epoch millis), set by every
   * change of its text or status; the optimistic lock of an edit.
   */
  public static final String UPDATED_AT = "updated_at";

  /** When the record last changed: its {@value #UPDATED_AT}, else its creation. */
  public Instant updatedAt() {
    Object value = extra.get(UPDATED_AT);
    if (value instanceof Number n) {
      return Instant.ofEpochMilli(n.longValue());
    }
    if (value != null) {
      try {
        return Instant.ofEpochMilli(Long.parseLong(value.toString()));
      } catch (NumberFormatException e) {
        // fall through: a malformed value counts as no update
      }
    }
    return createdAt;
  }

  /** A copy with {@code key} set to {@code value} in its other metadata. */
  public MemoryRecord withExtra(String key, Object value) {
    Map<String, Object> next = new LinkedHashMap<>(extra);
    next.put(key, value);
    return new MemoryRecord(
        id, text, agent, owner, scope, status, type, conversation, turn, createdAt, next);
  }

  /** A copy with another text (the caller re-embeds it by storing it). */
  public MemoryRecord withText(String newText) {
    return new MemoryRecord(
        id, newText, agent, owner, scope, status, type, conversation, turn, createdAt, extra);
  }

  /** A copy with another status. */
  public MemoryRecord withStatus(MemoryStatus newStatus) {
    return new MemoryRecord(
        id, text, agent, owner, scope, newStatus, type, conversation, turn, createdAt, extra);
  }

  /** The Spring AI document: text plus the metadata conventions of {@link MemoryVectorStore}. */
  public Document toDocument() {
    return Document.builder().id(id).text(text).metadata(metadata()).build();
  }

  /** The metadata map of {@link #toDocument()}. */
  public Map<String, Object> metadata() {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put(MemoryVectorStore.AGENT, agent.value());
    if (owner != null) {
      metadata.put(MemoryVectorStore.OWNER, owner.value());
    }
    metadata.put(MemoryVectorStore.SCOPE, scope.name());
    metadata.put(MemoryVectorStore.STATUS, status.name());
    metadata.put(MemoryVectorStore.TYPE, type);
    if (conversation != null) {
      metadata.put(MemoryVectorStore.CONVERSATION, conversation);
    }
    if (turn != null) {
      metadata.put(MemoryVectorStore.TURN, turn);
    }
    metadata.put(MemoryVectorStore.CREATED_AT, createdAt.toEpochMilli());
    metadata.putAll(extra);
    return metadata;
  }

  /**
   * Reads a document written with these conventions.
   *
   * @throws IllegalArgumentException naming the document and the missing or malformed key
   */
  public static MemoryRecord fromDocument(Document document) {
    Objects.requireNonNull(document, "document");
    String id = document.getId();
    Map<String, Object> m = document.getMetadata();
    try {
      String owner = optionalText(m, MemoryVectorStore.OWNER);
      Map<String, Object> extra = new LinkedHashMap<>();
      m.forEach(
          (key, value) -> {
            if (!RESERVED.contains(key) && !key.equals("distance")) {
              extra.put(key, value);
            }
          });
      String text = document.getText();
      return new MemoryRecord(
          id,
          text == null ? "" : text,
          AgentId.of(requiredText(m, MemoryVectorStore.AGENT)),
          owner == null ? null : OwnerKey.of(owner),
          Scope.valueOf(requiredText(m, MemoryVectorStore.SCOPE).toUpperCase(Locale.ROOT)),
          MemoryStatus.parse(requiredText(m, MemoryVectorStore.STATUS)),
          requiredText(m, MemoryVectorStore.TYPE),
          optionalText(m, MemoryVectorStore.CONVERSATION),
          optionalText(m, MemoryVectorStore.TURN),
          Instant.ofEpochMilli(createdAt(m)),
          extra);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("document " + id + ": " + e.getMessage(), e);
    }
  }

  private static String requiredText(Map<String, Object> m, String key) {
    String value = optionalText(m, key);
    if (value == null) {
      throw new IllegalArgumentException("metadata '" + key + "' is required");
    }
    return value;
  }

  private static String optionalText(Map<String, Object> m, String key) {
    Object value = m.get(key);
    if (value == null) {
      return null;
    }
    String text = value.toString();
    return text.isBlank() ? null : text;
  }

  private static long createdAt(Map<String, Object> m) {
    Object value = m.get(MemoryVectorStore.CREATED_AT);
    if (value == null) {
      throw new IllegalArgumentException(
          "metadata '" + MemoryVectorStore.CREATED_AT + "' is required");
    }
    return FilterWalker.millis(value);
  }

  /**
   * The metadata of a stored record after {@code changes} (a {@code null} value removes the key, an
   * enum is stored by its name), without the vector's {@link MemoryVectorStore#MODEL}: what a store
   * writes back on {@link MemoryVectorStore#updateMetadata}.
   */
  public static Map<String, Object> changed(
      Map<String, Object> current, Map<String, Object> changes) {
    Map<String, Object> metadata = new java.util.LinkedHashMap<>(current);
    metadata.remove(MemoryVectorStore.MODEL);
    changes.forEach(
        (key, value) -> {
          if (value == null) {
            metadata.remove(key);
          } else {
            metadata.put(key, value instanceof Enum<?> e ? e.name() : value);
          }
        });
    return metadata;
  }
}
