package dev.memstack.builtin.tools;

import dev.memstack.spi.ToolSpec;
import java.util.List;

/** Descriptions and JSON Schemas of the builtin tools. */
final class ToolSpecs {

  private static final String COMMON =
      """
      "agentId": {"type": ["string", "integer"], "description": "Optional; must be the calling agent."},
      "ownerKey": {"type": "string", "description": "The owner the call acts for, e.g. user:42. Usually set by the host; if both are given they must match."},
      """;

  private static final String SCOPE =
      """
      "scope": {"type": "string", "enum": ["personal", "team", "global"], "description": "Which copy: personal (the owner's own, needs ownerKey and per-owner memory), team (shared by every owner of this agent) or global (shared by every agent). Default: personal for PROFILE.md, MEMORY.md and memory/YYYY-MM-DD.md when there is an owner and per-owner memory is on, team otherwise."},
      """;

  /** {@link #SCOPE} of the tools that read every scope when none is given. */
  private static final String SCOPE_ANY =
      SCOPE.replace(
          "Default: personal for PROFILE.md, MEMORY.md and memory/YYYY-MM-DD.md when"
              + " there is an owner and per-owner memory is on, team otherwise.",
          "Default: every scope you can see.");

  private static final String FILENAME =
      """
      "filename": {"type": "string", "maxLength": 200, "description": "Relative Markdown file name, e.g. MEMORY.md or memory/2026-04-01.md. Only .md; no absolute paths, '..', backslashes, percent-escapes, control characters or hidden names."},
      """;

  private ToolSpecs() {}

  static List<ToolSpec> all() {
    return List.of(
        new ToolSpec(
            WorkspaceMemoryTools.LIST,
            "List the workspace memory files you can see (your personal files, the team's and"
                + " global ones), sorted by sort order. Enabled team/global files are in the"
                + " system prompt; daily notes (memory/YYYY-MM-DD.md) are not. Answers {agentId,"
                + " ownerKey, count, files:[{filename, scope, enabled, sortOrder, fileSize,"
                + " updateTime}]}.",
            schema(
                COMMON
                    + SCOPE_ANY
                    + """
                    "filenamePrefix": {"type": "string", "description": "Only names starting with this, e.g. memory/"}
                    """,
                ""),
            ToolSpec.Effect.READ),
        new ToolSpec(
            WorkspaceMemoryTools.READ,
            "Read one workspace memory file. Answers {agentId, ownerKey, filename, scope, enabled,"
                + " sortOrder, fileSize, updateTime, content}; NOT_FOUND if it does not exist.",
            schema(COMMON + SCOPE + FILENAME.stripTrailing().replaceAll(",$", ""), "\"filename\""),
            ToolSpec.Effect.READ),
        new ToolSpec(
            WorkspaceMemoryTools.WRITE,
            "Create or fully overwrite a workspace memory file (read it first if it exists)."
                + " PROFILE.md is capped at 4000 and MEMORY.md at 8000 characters by default: longer"
                + " content is cut at the last '## ' section that fits, with a marker line. New"
                + " files are disabled except the core files AGENTS.md, SOUL.md, PROFILE.md,"
                + " MEMORY.md. Answers {agentId, ownerKey, filename, scope, created, overwritten,"
                + " enabled, sortOrder, bytesWritten, fileSize, updateTime, truncated, message}.",
            schema(
                COMMON
                    + SCOPE
                    + FILENAME
                    + """
                    "content": {"type": "string", "description": "The whole new content (Markdown)."}
                    """,
                "\"filename\", \"content\""),
            ToolSpec.Effect.DESTRUCTIVE),
        new ToolSpec(
            WorkspaceMemoryTools.EDIT,
            "Replace an exact passage of a workspace memory file. oldText must occur exactly once"
                + " unless replaceAll is true; no match (or an ambiguous one) is a CONFLICT that"
                + " changes nothing. Answers {agentId, ownerKey, filename, scope, replacements,"
                + " replaceAll, fileSizeAfter, updateTime, truncated, message}.",
            schema(
                COMMON
                    + SCOPE
                    + FILENAME
                    + """
                    "oldText": {"type": "string", "minLength": 1, "description": "Exact text to find."},
                    "newText": {"type": "string", "description": "Text to put in its place (may be empty)."},
                    "replaceAll": {"type": "boolean", "default": false, "description": "Replace every occurrence."}
                    """,
                "\"filename\", \"oldText\", \"newText\""),
            ToolSpec.Effect.DESTRUCTIVE),
        new ToolSpec(
            WorkspaceMemoryTools.SEARCH,
            "Keyword search in every workspace memory file you can see (Latin words whole,"
                + " Chinese/Japanese/Korean by two-character windows; core files weigh more than"
                + " daily notes). Answers {agentId, ownerKey, query, count, hits:[{filename, scope,"
                + " line, snippet, score, updateTime}]}, best first.",
            schema(
                COMMON
                    + SCOPE_ANY
                    + """
                    "query": {"type": "string", "minLength": 1, "maxLength": 2000},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}
                    """,
                "\"query\""),
            ToolSpec.Effect.READ),
        new ToolSpec(
            WorkspaceMemoryTools.UPDATE_META,
            "Enable or disable a workspace memory file (enabled team/global files go into the"
                + " system prompt; enabled personal files into every recall for their owner) or"
                + " change its sort order. Answers {agentId, ownerKey, filename, scope, enabled,"
                + " sortOrder, fileSize, updateTime}.",
            schema(
                COMMON
                    + SCOPE
                    + FILENAME
                    + """
                    "enabled": {"type": "boolean"},
                    "sortOrder": {"type": "integer", "minimum": -1000000, "maximum": 1000000}
                    """,
                "\"filename\""),
            ToolSpec.Effect.WRITE),
        new ToolSpec(
            WorkspaceMemoryTools.EXPORT,
            "Export a memory snapshot: a ZIP of AGENTS.md, MEMORY.md, PROFILE.md, SOUL.md,"
                + " KNOWLEDGE.md and the daily notes of one scope (default team) plus manifest.json;"
                + " enabled/sortOrder are not carried. Answers {agentId, ownerKey, scope, fileName,"
                + " contentType, size, count, files:[{filename, fileSize, updateTime}], zipBase64}.",
            schema(
                COMMON
                    + """
                    "scope": {"type": "string", "enum": ["personal", "team", "global"], "default": "team"}
                    """,
                ""),
            ToolSpec.Effect.READ),
        new ToolSpec(
            WorkspaceMemoryTools.IMPORT,
            "Import a memory snapshot ZIP into one scope (default team). With preview (the"
                + " default) each entry is classified create/update/skip and nothing is written;"
                + " with preview false all entries are written or none. At most 500 entries, 1 MiB"
                + " per entry and 16 MiB in all; unsafe names refuse the archive; entries outside"
                + " the whitelist are ignored and reported. Answers {agentId, ownerKey, scope,"
                + " preview, applied, created, updated, skipped, entries:[{filename, action,"
                + " fileSize, truncated}], ignored:[{name, reason}], message}.",
            schema(
                COMMON
                    + """
                    "scope": {"type": "string", "enum": ["personal", "team", "global"], "default": "team"},
                    "zipBase64": {"type": "string", "description": "The ZIP archive, base64."},
                    "preview": {"type": "boolean", "default": true}
                    """,
                "\"zipBase64\""),
            ToolSpec.Effect.DESTRUCTIVE));
  }

  private static final String ID =
      """
      "id": {"type": "string", "description": "The memory's id, as list_memories answers it."}
      """;

  private static final String FILTERS =
      """
      "status": {"description": "active, archived or suppressed (one or a list), or any; every status by default", "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
      "type": {"description": "profile (PROFILE.md), memory (MEMORY.md) or daily (daily notes); one or a list", "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
      "scope": {"type": "string", "enum": ["personal", "team", "global"]},
      "text": {"type": "string", "description": "Words the memory's text holds, all of them."},
      "since": {"type": "string", "description": "Created at or after (ISO date or instant)."},
      "until": {"type": "string", "description": "Created before (ISO date or instant)."},
      """;

  private static final String PAGE =
      """
      "offset": {"type": "integer", "minimum": 0, "default": 0},
      "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}
      """;

  /**
   * The memory-admin tools ({@link MemoryAdminTools}): each bullet of PROFILE.md and MEMORY.md and
   * each daily-note entry as one memory.
   */
  static List<ToolSpec> admin() {
    String item =
        " A memory is one bullet of PROFILE.md or MEMORY.md (type profile or memory, with its"
            + " section) or one entry of a daily note (type daily), yours or the team's.";
    return List.of(
        new ToolSpec(
            dev.memstack.spi.StandardTools.LIST_MEMORIES,
            "List the memories you can see, newest first, in pages."
                + item
                + " Answers {total, offset, limit, items:[{id, text, scope, owner, type, section,"
                + " file, status, createdAt, updatedAt}]}.",
            schema(COMMON + FILTERS + PAGE, ""),
            ToolSpec.Effect.READ),
        new ToolSpec(
            dev.memstack.spi.StandardTools.COUNT_MEMORIES,
            "Count the memories you can see with the filters of list_memories; with allOwners"
                + " (and no owner) every owner's and the team's. Answers {total, byStatus,"
                + " byType}.",
            schema(
                COMMON
                    + FILTERS
                    + """
                    "allOwners": {"type": "boolean", "description": "Count every owner's personal memories of this agent too (no owner on the call)."}
                    """,
                ""),
            ToolSpec.Effect.READ),
        new ToolSpec(
            dev.memstack.spi.StandardTools.LIST_OWNERS,
            "The owners this agent keeps personal memory files for, by owner key, in pages, each"
                + " with how many memories they hold. Answers {total, offset, limit,"
                + " owners:[{ownerKey, count}]}.",
            schema(
                COMMON
                    + """
                    "offset": {"type": "integer", "minimum": 0, "default": 0},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 50, "description": "At most 1000 with counts."},
                    "q": {"type": "string", "description": "A part of the owner key, any case."},
                    "prefix": {"type": "string", "description": "The start of the owner key."},
                    "counts": {"type": "boolean", "description": "false: the keys alone, without reading each owner's files."}
                    """,
                ""),
            ToolSpec.Effect.READ),
        byId(
            dev.memstack.spi.StandardTools.GET_MEMORY,
            "Read one memory by id. An id an edit replaced leads to the edited memory.",
            ToolSpec.Effect.READ),
        new ToolSpec(
            dev.memstack.spi.StandardTools.UPDATE_MEMORY_STATUS,
            "Archive or suppress (as wrong) one active memory: it moves out of its file into"
                + " history/archive.md and leaves the prompt and search; or activate an archived"
                + " or suppressed one: it goes back to its file and section. Answers {id, status,"
                + " previous, updatedAt}; another change is a CONFLICT.",
            schema(
                COMMON
                    + ID.stripTrailing()
                    + ","
                    + """
                    "status": {"type": "string", "enum": ["active", "archived", "suppressed"]}
                    """,
                "\"id\", \"status\""),
            ToolSpec.Effect.WRITE),
        new ToolSpec(
            dev.memstack.spi.StandardTools.EDIT_MEMORY,
            "Replace one memory's text in its file. updatedAt is the updatedAt you read: if the"
                + " file changed since, nothing is written (CONFLICT). The edited memory has a new"
                + " id (its text makes it); the answer is the memory with it, changed and"
                + " previousId.",
            schema(
                COMMON
                    + ID.stripTrailing()
                    + ","
                    + """
                    "text": {"type": "string", "minLength": 1},
                    "updatedAt": {"type": "string", "description": "ISO instant, as read"}
                    """,
                "\"id\", \"text\", \"updatedAt\""),
            ToolSpec.Effect.WRITE),
        byId(
            dev.memstack.spi.StandardTools.DELETE_MEMORY,
            "Forget one memory for good: it leaves its file (or the archive), and its text leaves"
                + " its history, the other histories, the dreaming reports and DREAMS.md; the"
                + " history keeps only that it was forgotten. Answers {id, deleted}.",
            ToolSpec.Effect.DESTRUCTIVE),
        byId(
            dev.memstack.spi.StandardTools.MEMORY_HISTORY,
            "One memory's history, oldest first: added and removed (by any write of its file),"
                + " updated (with the earlier text), status changes; a forgotten memory shows only"
                + " that it was forgotten. Answers {id, forgotten, events:[{at, event, actor, id,"
                + " file, section, text, previous, status, previousStatus, other}]}.",
            ToolSpec.Effect.READ));
  }

  /** A tool whose one argument (beside the caller's) is a memory's {@code id}. */
  private static ToolSpec byId(String name, String description, ToolSpec.Effect effect) {
    return new ToolSpec(name, description, schema(COMMON + ID, "\"id\""), effect);
  }

  private static String schema(String properties, String required) {
    String props = properties.strip();
    if (props.endsWith(",")) {
      props = props.substring(0, props.length() - 1);
    }
    return "{\"type\": \"object\", \"properties\": {"
        + props
        + "}, \"required\": ["
        + required
        + "], \"additionalProperties\": false}";
  }
}
