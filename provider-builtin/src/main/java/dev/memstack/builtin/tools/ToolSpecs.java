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
