package dev.memstack.vector;

import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ToolArgumentErrors;
import dev.memstack.support.ToolArguments;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.types.CustomTypeStore;
import dev.memstack.vector.types.MemoryType;
import dev.memstack.vector.types.MemoryTypes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The memory type tools of {@link VectorMemoryTools}: the types an agent may store memories as (the
 * built-in ones and its custom ones, {@link MemoryTypes}), creating and deleting custom types, and
 * the counts of the memories an owner may see by type and by status. Types belong to the agent, so
 * changing them needs the right to write the agent's TEAM memory.
 */
record TypeTools(VectorMemoryProvider provider, JsonMapper json) {

  static final String LIST = "memory_list_types";
  static final String CREATE = "memory_create_type";
  static final String DELETE = "memory_delete_type";
  static final String STATS = "memory_stats";

  static final List<ToolSpec> SPECS = specs();

  /** Records of types the agent does not have are counted by listing them, in pages of this. */
  private static final int OTHER_PAGE = 500;

  /** ... up to this many such records; any beyond are reported as {@code otherTypes}. */
  private static final int OTHER_MAX = 10_000;

  private static List<ToolSpec> specs() {
    return List.of(
        new ToolSpec(
            LIST,
            "List the memory types of this agent: the built-in ones (system: true; they cannot"
                + " be deleted) and the agent's custom ones, each with its key (what remember's"
                + " type takes), name and description.",
            "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
            ToolSpec.Effect.READ),
        new ToolSpec(
            CREATE,
            "Add a custom memory type for this agent (every owner of the agent can then store"
                + " memories of it). The key is upper-cased; a key that exists is a conflict.",
            "{\"type\":\"object\",\"properties\":{"
                + "\"key\":{\"type\":\"string\",\"description\":\"letters, digits and"
                + " underscores, starting with a letter, at most 32; upper-cased\"},"
                + "\"name\":{\"type\":\"string\",\"description\":\"display name, at most "
                + MemoryType.MAX_NAME
                + " characters\"},"
                + "\"description\":{\"type\":\"string\",\"description\":\"what the type is"
                + " for, at most "
                + MemoryType.MAX_DESCRIPTION
                + " characters\"},"
                + "\"icon\":{\"type\":\"string\",\"description\":\"an icon name or emoji, at"
                + " most "
                + MemoryType.MAX_ICON
                + " characters\"}},"
                + "\"required\":[\"key\",\"name\"],\"additionalProperties\":false}",
            ToolSpec.Effect.WRITE),
        new ToolSpec(
            DELETE,
            "Delete a custom memory type of this agent. Built-in types cannot be deleted. The"
                + " memories of the type are kept as they are.",
            "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}},"
                + "\"required\":[\"key\"],\"additionalProperties\":false}",
            ToolSpec.Effect.DESTRUCTIVE),
        new ToolSpec(
            STATS,
            "Count the memories the current owner may see (their personal memories of this"
                + " agent, the agent's team memories and global ones), in total, by type and by"
                + " status.",
            "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
            ToolSpec.Effect.READ));
  }

  ObjectNode call(ToolCall call) {
    return switch (call.name()) {
      case LIST -> list(call);
      case CREATE -> create(call);
      case DELETE -> delete(call);
      case STATS -> stats(call);
      default -> throw new IllegalArgumentException("not a type tool: " + call.name());
    };
  }

  private ObjectNode list(ToolCall call) {
    ToolArguments.parse(call).requireOnly(Set.of());
    ObjectNode answer = json.createObjectNode();
    ArrayNode items = answer.putArray("types");
    provider.parts().types().all(call.agent()).forEach(type -> items.add(item(type)));
    return answer;
  }

  private ObjectNode create(ToolCall call) {
    ToolArguments args =
        ToolArguments.parse(call).requireOnly(Set.of("key", "name", "description", "icon"));
    String key = key(args);
    String name = args.requiredText("name", MemoryType.MAX_NAME);
    String description = optional(args, "description", MemoryType.MAX_DESCRIPTION);
    String icon = optional(args, "icon", MemoryType.MAX_ICON);
    call.requireWritable(Scope.TEAM);
    MemoryType type = MemoryType.custom(key, name, description, icon);
    CustomTypeStore.Outcome outcome = provider.parts().types().create(call.agent(), type);
    switch (outcome) {
      case EXISTS ->
          throw new ToolException(
              ToolException.Kind.CONFLICT,
              call.name()
                  + ": type "
                  + key
                  + (MemoryType.builtIn(key) != null
                      ? " is built in"
                      : " exists already for agent " + call.agent()));
      case FULL ->
          throw new ToolException(
              ToolException.Kind.CONFLICT,
              call.name()
                  + ": agent "
                  + call.agent()
                  + " has "
                  + MemoryTypes.MAX_CUSTOM
                  + " custom types, the most it may have; delete one first");
      case CREATED -> {}
    }
    ObjectNode answer = json.createObjectNode();
    answer.put("created", true);
    answer.set("type", item(type));
    return answer;
  }

  private ObjectNode delete(ToolCall call) {
    ToolArguments args = ToolArguments.parse(call).requireOnly(Set.of("key"));
    String key = key(args);
    call.requireWritable(Scope.TEAM);
    if (MemoryType.builtIn(key) != null) {
      throw new ToolException(
          ToolException.Kind.CONFLICT,
          call.name() + ": type " + key + " is built in and cannot be deleted");
    }
    if (!provider.parts().types().delete(call.agent(), key)) {
      throw new ToolException(
          ToolException.Kind.NOT_FOUND,
          call.name() + ": agent " + call.agent() + " has no custom type " + key);
    }
    ObjectNode answer = json.createObjectNode();
    answer.put("key", key);
    answer.put("deleted", true);
    return answer;
  }

  /**
   * Counts by filters on the store's indexed fields: one count per status, one per type the agent
   * has; records of other types (a deleted custom type, another agent's global records) are listed
   * to find their types.
   */
  private ObjectNode stats(ToolCall call) {
    ToolArguments.parse(call).requireOnly(Set.of());
    MemoryVectorStore store = provider.parts().store();
    Filter.Expression visible = MemoryFilters.visibleTo(call.agent(), call.owner());
    long total = store.count(visible);
    ObjectNode answer = json.createObjectNode();
    answer.put("total", total);
    Map<String, Long> byType = new LinkedHashMap<>();
    List<String> known = new ArrayList<>();
    long typed = 0;
    for (MemoryType type : provider.parts().types().all(call.agent())) {
      long n =
          total == 0
              ? 0
              : store.count(
                  MemoryFilters.and(visible, MemoryFilters.eq(MemoryVectorStore.TYPE, type.key())));
      byType.put(type.key(), n);
      known.add(type.key());
      typed += n;
    }
    long other = total - typed;
    if (other > 0) {
      other -= countOtherTypes(store, visible, known, byType);
    }
    ObjectNode types = answer.putObject("byType");
    byType.forEach(types::put);
    if (other > 0) {
      answer.put("otherTypes", other);
    }
    ObjectNode statuses = answer.putObject("byStatus");
    for (MemoryStatus status : MemoryStatus.values()) {
      statuses.put(
          status.wireName(),
          total == 0
              ? 0
              : store.count(
                  MemoryFilters.and(
                      visible, MemoryFilters.eq(MemoryVectorStore.STATUS, status.name()))));
    }
    return answer;
  }

  /** Adds the records of types not in {@code known} to {@code byType}; returns how many. */
  private static long countOtherTypes(
      MemoryVectorStore store,
      Filter.Expression visible,
      List<String> known,
      Map<String, Long> byType) {
    Filter.Expression others =
        MemoryFilters.and(
            visible,
            new Filter.Expression(
                Filter.ExpressionType.NIN,
                new Filter.Key(MemoryVectorStore.TYPE),
                new Filter.Value(known)));
    Map<String, Long> found = new java.util.TreeMap<>();
    long counted = 0;
    for (int offset = 0; offset < OTHER_MAX; offset += OTHER_PAGE) {
      List<Document> page = store.list(others, offset, OTHER_PAGE);
      for (Document doc : page) {
        found.merge(MemoryRecord.fromDocument(doc).type(), 1L, Long::sum);
      }
      counted += page.size();
      if (page.size() < OTHER_PAGE) {
        break;
      }
    }
    byType.putAll(found);
    return counted;
  }

  private ObjectNode item(MemoryType type) {
    return type.putInto(json.createObjectNode()).put("system", type.system());
  }

  private static String key(ToolArguments args) {
    String key = args.requiredText("key");
    try {
      return MemoryRecord.normalizeType(key);
    } catch (IllegalArgumentException e) {
      throw ToolArgumentErrors.invalid(
          "key",
          "must be letters, digits and underscores starting with a letter, at most 32, got: "
              + key);
    }
  }

  private static String optional(ToolArguments args, String field, int max) {
    String value = args.optionalText(field);
    if (value != null && value.length() > max) {
      throw ToolArgumentErrors.invalid(field, "is longer than " + max + " characters");
    }
    return value;
  }

  /** The agent's type keys, for the error of an unknown type. */
  static String known(MemoryTypes types, dev.memstack.spi.AgentId agent) {
    return types.all(agent).stream().map(MemoryType::key).collect(Collectors.joining(", "));
  }
}
