package dev.memstack.builtin.tools;

import dev.memstack.builtin.memory.MemorySnapshots;
import dev.memstack.builtin.memory.WorkspaceMemory;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.support.ToolArguments;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The builtin provider's tools, with the JSON shapes of the seeds' {@code WorkspaceMemoryTool}
 * ({@code list_workspace_memory_files}, {@code read_workspace_memory_file}, {@code
 * write_workspace_memory_file}, {@code edit_workspace_memory_file}), keyword search ({@code
 * search_workspace_memory}) and the calls the host's REST routes need ({@code
 * update_workspace_file_meta}, {@code export_workspace_memory}, {@code import_workspace_memory}).
 *
 * <p>Owner: the call's {@link ToolCall#owner()}, or the {@code ownerKey} argument when the host set
 * none; when both are given they must be equal ({@code FORBIDDEN} otherwise). An owner reaches only
 * their own PERSONAL files plus the shared TEAM and GLOBAL files. Scope ({@code scope} argument):
 * {@code personal}, {@code team} or {@code global}; without it, {@code PROFILE.md}, {@code
 * MEMORY.md} and daily notes address the owner's PERSONAL copy when there is an owner and {@code
 * per-owner} is on, and everything else addresses TEAM. Errors: {@link ToolException} with {@code
 * INVALID_ARGUMENT} naming the argument, {@code NOT_FOUND} for a missing file, {@code CONFLICT} for
 * an edit whose {@code oldText} does not match; a refused call changes nothing.
 */
public final class WorkspaceMemoryTools {

  public static final String LIST = StandardTools.LIST_WORKSPACE_FILES;
  public static final String READ = StandardTools.READ_WORKSPACE_FILE;
  public static final String WRITE = StandardTools.WRITE_WORKSPACE_FILE;
  public static final String EDIT = "edit_workspace_memory_file";
  public static final String SEARCH = StandardTools.SEARCH_WORKSPACE;
  public static final String UPDATE_META = StandardTools.UPDATE_WORKSPACE_FILE_META;
  public static final String EXPORT = StandardTools.EXPORT_WORKSPACE;
  public static final String IMPORT = StandardTools.IMPORT_WORKSPACE;

  private static final int MAX_BASE64_CHARS =
      (MemorySnapshots.MAX_ARCHIVE_BYTES / 3 + 1) * 4 + 1024;

  private final WorkspaceMemory memory;
  private final MemorySnapshots snapshots;
  private final Clock clock;
  private final JsonMapper json = JsonMapper.builder().build();
  private final List<ToolSpec> specs;
  private final Map<String, Tool> tools = new LinkedHashMap<>();

  private record Tool(Set<String> arguments, BiFunction<ToolCall, ToolArguments, ObjectNode> run) {}

  public WorkspaceMemoryTools(WorkspaceMemory memory, Clock clock) {
    this.memory = memory;
    this.clock = clock;
    this.snapshots = new MemorySnapshots(memory, clock);
    tools.put(LIST, new Tool(Set.of("agentId", "ownerKey", "scope", "filenamePrefix"), this::list));
    tools.put(READ, new Tool(Set.of("agentId", "ownerKey", "scope", "filename"), this::read));
    tools.put(
        WRITE,
        new Tool(Set.of("agentId", "ownerKey", "scope", "filename", "content"), this::write));
    tools.put(
        EDIT,
        new Tool(
            Set.of("agentId", "ownerKey", "scope", "filename", "oldText", "newText", "replaceAll"),
            this::edit));
    tools.put(
        SEARCH, new Tool(Set.of("agentId", "ownerKey", "scope", "query", "limit"), this::search));
    tools.put(
        UPDATE_META,
        new Tool(
            Set.of("agentId", "ownerKey", "scope", "filename", "enabled", "sortOrder"),
            this::updateMeta));
    tools.put(EXPORT, new Tool(Set.of("agentId", "ownerKey", "scope"), this::export));
    tools.put(
        IMPORT,
        new Tool(Set.of("agentId", "ownerKey", "scope", "zipBase64", "preview"), this::importZip));
    this.specs = ToolSpecs.all();
  }

  /** The tool descriptions and JSON schemas. */
  public List<ToolSpec> specs() {
    return specs;
  }

  /**
   * Runs one tool.
   *
   * @return the JSON answer
   * @throws ToolException for a bad argument, a missing file, a refused operation or a storage
   *     failure ({@code UNAVAILABLE})
   */
  public String call(ToolCall call) {
    Tool tool = tools.get(call.name());
    if (tool == null) {
      throw new ToolException(
          ToolException.Kind.NOT_FOUND,
          "no tool " + call.name() + "; the builtin provider has " + tools.keySet());
    }
    ToolArguments args = ToolArguments.parse(call).requireOnly(tool.arguments());
    CallerArguments.checkAgent(call, args);
    try {
      return json.writeValueAsString(tool.run().apply(call, args));
    } catch (InvalidWorkspacePathException e) {
      throw WorkspaceMemory.invalidPath("filename", e);
    } catch (UncheckedIOException e) {
      throw new ToolException(
          ToolException.Kind.UNAVAILABLE, "workspace storage failed: " + e.getMessage(), e);
    } catch (JacksonException e) {
      throw new IllegalStateException("cannot write a tool answer", e);
    }
  }

  // ---------------------------------------------------------------- the tools

  private ObjectNode list(ToolCall call, ToolArguments args) {
    OwnerKey owner = CallerArguments.owner(call, args);
    String prefix = args.optionalString("filenamePrefix");
    if (prefix != null && (prefix.length() > WorkspacePath.MAX_LENGTH || hasControl(prefix))) {
      throw ToolException.invalidArgument(
          "filenamePrefix",
          "filenamePrefix must be at most " + WorkspacePath.MAX_LENGTH + " printable characters");
    }
    String scope = args.optionalString("scope");
    List<Bucket> buckets =
        scope == null
            ? memory.visibleBuckets(call.agent(), owner)
            : List.of(memory.resolve(call.agent(), owner, scope, null));
    List<WorkspaceMemory.Listed> listed =
        memory.list(call.agent(), buckets, prefix == null ? "" : prefix);
    ObjectNode answer = answer(call.agent(), owner);
    answer.put("count", listed.size());
    ArrayNode files = answer.putArray("files");
    for (WorkspaceMemory.Listed item : listed) {
      ObjectNode file = files.addObject();
      file.put("filename", item.entry().path().value());
      file.put("scope", item.bucket().scopeName());
      putEntry(file, item.entry());
    }
    return answer;
  }

  private ObjectNode read(ToolCall call, ToolArguments args) {
    OwnerKey owner = CallerArguments.owner(call, args);
    WorkspacePath path = filename(args);
    Bucket bucket = memory.resolve(call.agent(), owner, args.optionalString("scope"), path);
    WorkspaceMemory.ReadFile file = memory.read(call.agent(), bucket, path);
    ObjectNode answer = fileAnswer(call.agent(), owner, bucket, path);
    putEntry(answer, file.entry());
    answer.put("content", file.content());
    return answer;
  }

  private ObjectNode write(ToolCall call, ToolArguments args) {
    OwnerKey owner = CallerArguments.owner(call, args);
    WorkspacePath path = filename(args);
    String content = args.requiredString("content");
    Bucket bucket =
        writable(call, memory.resolve(call.agent(), owner, args.optionalString("scope"), path));
    WorkspaceMemory.Written written = memory.write(call.agent(), bucket, path, content);
    ObjectNode answer = fileAnswer(call.agent(), owner, bucket, path);
    answer.put("created", written.created());
    answer.put("overwritten", !written.created());
    answer.put("enabled", written.entry().enabled());
    answer.put("sortOrder", written.entry().sortOrder());
    answer.put("bytesWritten", written.bytesWritten());
    answer.put("fileSize", written.entry().size());
    answer.put("updateTime", time(written.entry()));
    answer.put("truncated", written.capped().truncated());
    String message =
        written.created() ? "workspace memory file created" : "workspace memory file overwritten";
    if (written.capped().truncated()) {
      message +=
          "; the content had "
              + written.capped().originalChars()
              + " characters and was cut at a section boundary to fit the file's cap";
    }
    answer.put("message", message);
    return answer;
  }

  private ObjectNode edit(ToolCall call, ToolArguments args) {
    OwnerKey owner = CallerArguments.owner(call, args);
    WorkspacePath path = filename(args);
    String oldText = args.requiredString("oldText");
    String newText = args.requiredString("newText");
    Boolean replaceAll = args.optionalBoolean("replaceAll");
    boolean all = replaceAll != null && replaceAll;
    Bucket bucket =
        writable(call, memory.resolve(call.agent(), owner, args.optionalString("scope"), path));
    WorkspaceMemory.Edited edited = memory.edit(call.agent(), bucket, path, oldText, newText, all);
    ObjectNode answer = fileAnswer(call.agent(), owner, bucket, path);
    answer.put("replacements", edited.replacements());
    answer.put("replaceAll", all);
    answer.put("fileSizeAfter", edited.entry().size());
    answer.put("updateTime", time(edited.entry()));
    answer.put("truncated", edited.truncated());
    answer.put(
        "message",
        edited.truncated()
            ? "workspace memory file edited; the result was cut at a section boundary to fit the"
                + " file's cap"
            : "workspace memory file edited");
    return answer;
  }

  private ObjectNode search(ToolCall call, ToolArguments args) {
    OwnerKey owner = CallerArguments.owner(call, args);
    String query = args.requiredString("query");
    if (query.isBlank() || query.length() > 2000) {
      throw ToolException.invalidArgument("query", "query must be 1-2000 characters and not blank");
    }
    Integer limit = args.optionalInt("limit", 1, 50);
    String scope = args.optionalString("scope");
    List<Bucket> buckets =
        scope == null
            ? memory.visibleBuckets(call.agent(), owner)
            : List.of(memory.resolve(call.agent(), owner, scope, null));
    memory.ensureAgent(call.agent());
    List<KeywordHit> hits = memory.search(buckets, query, limit == null ? 10 : limit);
    ObjectNode answer = answer(call.agent(), owner);
    answer.put("query", query);
    answer.put("count", hits.size());
    ArrayNode array = answer.putArray("hits");
    for (KeywordHit hit : hits) {
      ObjectNode node = array.addObject();
      node.put("filename", hit.path().value());
      node.put("scope", hit.bucket().scopeName());
      node.put("line", hit.line());
      node.put("snippet", hit.snippet());
      node.put("score", Math.round(hit.score() * 10_000) / 10_000.0);
      node.put("updateTime", hit.updateTime().truncatedTo(ChronoUnit.MILLIS).toString());
    }
    return answer;
  }

  private ObjectNode updateMeta(ToolCall call, ToolArguments args) {
    OwnerKey owner = CallerArguments.owner(call, args);
    WorkspacePath path = filename(args);
    Boolean enabled = args.optionalBoolean("enabled");
    Integer sortOrder = args.optionalInt("sortOrder", -1_000_000, 1_000_000);
    if (enabled == null && sortOrder == null) {
      throw ToolException.invalidArgument("enabled", "enabled or sortOrder is required");
    }
    Bucket bucket =
        writable(call, memory.resolve(call.agent(), owner, args.optionalString("scope"), path));
    FileEntry entry = memory.updateMeta(call.agent(), bucket, path, enabled, sortOrder);
    ObjectNode answer = fileAnswer(call.agent(), owner, bucket, path);
    putEntry(answer, entry);
    return answer;
  }

  private ObjectNode export(ToolCall call, ToolArguments args) {
    OwnerKey owner = CallerArguments.owner(call, args);
    String scope = args.optionalString("scope");
    Bucket bucket = memory.resolve(call.agent(), owner, scope == null ? "team" : scope, null);
    MemorySnapshots.Exported exported = snapshots.export(call.agent(), bucket);
    ObjectNode answer = answer(call.agent(), owner);
    answer.put("scope", bucket.scopeName());
    answer.put(
        "fileName",
        call.agent().value()
            + "-"
            + bucket.scopeName()
            + "-memory-"
            + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(clock.getZone())
                .format(clock.instant())
            + ".zip");
    answer.put("contentType", "application/zip");
    answer.put("size", exported.zip().length);
    answer.put("count", exported.files().size());
    ArrayNode files = answer.putArray("files");
    for (FileEntry entry : exported.files()) {
      ObjectNode file = files.addObject();
      file.put("filename", entry.path().value());
      file.put("fileSize", entry.size());
      file.put("updateTime", time(entry));
    }
    answer.put("zipBase64", Base64.getEncoder().encodeToString(exported.zip()));
    return answer;
  }

  private ObjectNode importZip(ToolCall call, ToolArguments args) {
    OwnerKey owner = CallerArguments.owner(call, args);
    String encoded = args.requiredString("zipBase64");
    if (encoded.length() > MAX_BASE64_CHARS) {
      throw ToolException.invalidArgument(
          "zipBase64",
          "zipBase64 is longer than an archive of " + MemorySnapshots.MAX_ARCHIVE_BYTES + " bytes");
    }
    byte[] zip;
    try {
      zip = Base64.getMimeDecoder().decode(encoded);
    } catch (IllegalArgumentException e) {
      throw ToolException.invalidArgument(
          "zipBase64", "zipBase64 is not valid base64: " + e.getMessage());
    }
    Boolean previewArg = args.optionalBoolean("preview");
    boolean preview = previewArg == null || previewArg;
    String scope = args.optionalString("scope");
    Bucket bucket =
        writable(call, memory.resolve(call.agent(), owner, scope == null ? "team" : scope, null));
    MemorySnapshots.ImportReport report;
    try {
      report = snapshots.importArchive(bucket, zip, preview);
    } catch (ToolException e) {
      if (e.getMessage().startsWith("zip:")) {
        throw ToolException.invalidArgument("zipBase64", "zipBase64" + e.getMessage().substring(3));
      }
      throw e;
    }
    ObjectNode answer = answer(call.agent(), owner);
    answer.put("scope", bucket.scopeName());
    answer.put("preview", report.preview());
    answer.put("applied", report.applied());
    answer.put("created", report.count("create"));
    answer.put("updated", report.count("update"));
    answer.put("skipped", report.count("skip"));
    ArrayNode entries = answer.putArray("entries");
    for (MemorySnapshots.Planned planned : report.entries()) {
      ObjectNode node = entries.addObject();
      node.put("filename", planned.path().value());
      node.put("action", planned.action());
      node.put("fileSize", planned.bytes());
      node.put("truncated", planned.truncated());
    }
    ArrayNode ignored = answer.putArray("ignored");
    for (MemorySnapshots.Ignored item : report.ignored()) {
      ObjectNode node = ignored.addObject();
      node.put("name", item.name());
      node.put("reason", item.reason());
    }
    answer.put(
        "message",
        report.preview()
            ? "preview only: nothing was written"
            : "snapshot imported: "
                + report.count("create")
                + " created, "
                + report.count("update")
                + " updated, "
                + report.count("skip")
                + " unchanged");
    return answer;
  }

  // ---------------------------------------------------------------- helpers

  /**
   * The bucket a write addresses, once the caller may change it ({@link ToolCall#requireWritable}):
   * a caller limited to personal memory gets FORBIDDEN for a team or global file (AGENTS.md,
   * SOUL.md, the team's MEMORY.md, ...) before anything is written. A personal bucket is always the
   * call's own owner's ({@link #owner}).
   */
  private static Bucket writable(ToolCall call, Bucket bucket) {
    call.requireWritable(bucket.scope());
    return bucket;
  }

  private static WorkspacePath filename(ToolArguments args) {
    String name = args.requiredString("filename");
    try {
      return WorkspacePath.of(name);
    } catch (InvalidWorkspacePathException e) {
      throw WorkspaceMemory.invalidPath("filename", e);
    }
  }

  private ObjectNode answer(AgentId agent, OwnerKey owner) {
    return CallerArguments.answer(json, agent, owner);
  }

  private ObjectNode fileAnswer(AgentId agent, OwnerKey owner, Bucket bucket, WorkspacePath path) {
    ObjectNode answer = answer(agent, owner);
    answer.put("filename", path.value());
    answer.put("scope", bucket.scopeName());
    return answer;
  }

  private static void putEntry(ObjectNode node, FileEntry entry) {
    node.put("enabled", entry.enabled());
    node.put("sortOrder", entry.sortOrder());
    node.put("fileSize", entry.size());
    node.put("updateTime", time(entry));
  }

  private static String time(FileEntry entry) {
    return entry.updateTime().truncatedTo(ChronoUnit.MILLIS).toString();
  }

  private static boolean hasControl(String text) {
    return text.chars().anyMatch(Character::isISOControl);
  }
}
