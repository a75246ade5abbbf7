package dev.memstack.host.api;

import dev.memstack.host.api.BodySizeLimitFilter.RouteLimit;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.security.AccessDeniedException;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.RequiresRole;
import dev.memstack.host.security.Role;
import dev.memstack.host.stack.InvalidRequestException;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.media.SchemaProperty;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.springframework.http.ContentDisposition;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.multipart.MaxUploadSizeExceededException;
import org.springframework.web.multipart.MultipartException;
import org.springframework.web.multipart.MultipartFile;
import org.springframework.web.multipart.MultipartHttpServletRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Workspace files over REST (issue 3), built on the standard tools ({@link StandardTools}) of the
 * provider that claims {@link Capability#WORKSPACE_FILES}, which it calls like {@link
 * ToolController} does (the host never sees a provider class, nor a plugin's own tool names): list,
 * read, write and update the metadata of files, keyword search, and the snapshot export and import
 * (preview and apply). The provider is the instance {@code memstack.api.workspace-provider} when it
 * is set, else the first running one in stack order that claims the capability ({@link
 * CapabilityTools}); without one the routes answer 503 naming the capability. A file path in the
 * URL is decoded and checked by {@link WorkspaceFilePath} before any provider sees it. The tools'
 * errors map to 400 (naming the request field: {@code filename} becomes {@code path}, {@code
 * zipBase64} becomes {@code file}), 404, 409, 403 and 503.
 *
 * <p>Access: by each tool's declared effect, as for {@link ToolController}: reads (list, read,
 * search, export) need {@code viewer}, writes (write, metadata, import and its preview) {@code
 * member}, both only for an owner the token covers; a token bound to owners writes only personal
 * memory (its writes need an {@code ownerKey}, default to {@code scope: personal}, and the provider
 * refuses a team or global file with 403).
 */
@JsonRoutes(WorkspaceController.BASE)
public class WorkspaceController {

  static final String BASE = "/api/v1/agents/{agentId}/workspace";
  static final String IMPORT = "/memory/import";
  static final String IMPORT_PREVIEW = "/memory/import/preview";

  static final String LIST = StandardTools.LIST_WORKSPACE_FILES;
  static final String READ = StandardTools.READ_WORKSPACE_FILE;
  static final String WRITE = StandardTools.WRITE_WORKSPACE_FILE;
  static final String SEARCH = StandardTools.SEARCH_WORKSPACE;
  static final String UPDATE_META = StandardTools.UPDATE_WORKSPACE_FILE_META;
  static final String EXPORT = StandardTools.EXPORT_WORKSPACE;
  static final String IMPORT_TOOL = StandardTools.IMPORT_WORKSPACE;

  private static final String SETTING = "memstack.api.workspace-provider";

  /** Tool argument names that the REST routes call differently. */
  private static final Map<String, String> FIELDS =
      Map.of("filename", WorkspaceFilePath.FIELD, "filenamePrefix", "prefix", "zipBase64", "file");

  private static final Set<String> ARGUMENTS =
      Set.of(
          "filename",
          "filenamePrefix",
          "zipBase64",
          "content",
          "scope",
          "ownerKey",
          "agentId",
          "enabled",
          "sortOrder",
          "query",
          "limit",
          "preview");

  private static final MediaType ZIP = MediaType.parseMediaType("application/zip");
  private static final List<MediaType> RAW_ZIP_TYPES =
      List.of(
          ZIP,
          MediaType.parseMediaType("application/x-zip-compressed"),
          MediaType.APPLICATION_OCTET_STREAM);

  private final CapabilityRoute workspace;
  private final JsonMapper json;

  public WorkspaceController(CapabilityTools providers, JsonMapper json, ApiProperties properties) {
    this.workspace =
        providers.route(
            Capability.WORKSPACE_FILES,
            properties.workspaceProvider(),
            SETTING,
            message -> new ToolException(ToolException.Kind.UNAVAILABLE, message));
    this.json = json;
  }

  /** The body limits of the import routes, for {@link BodySizeLimitFilter}. */
  static List<RouteLimit> importLimits(long bytes) {
    String key = "memstack.api.max-import-bytes";
    return List.of(
        new RouteLimit(HttpMethod.POST, BASE + IMPORT, bytes, key),
        new RouteLimit(HttpMethod.POST, BASE + IMPORT_PREVIEW, bytes, key));
  }

  // ---------------------------------------------------------------- files

  @Operation(summary = "List the workspace memory files the owner may see")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/files")
  public JsonNode list(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "prefix", required = false) String prefix,
      @RequestParam(name = "scope", required = false) String scope,
      @RequestParam(name = "ownerKey", required = false) String ownerKey) {
    ObjectNode arguments = json.createObjectNode();
    putIfPresent(arguments, "filenamePrefix", prefix);
    putIfPresent(arguments, "scope", scope);
    return call(agent(agentId), owner(null, ownerKey), LIST, arguments);
  }

  @Operation(summary = "Read one workspace file (the path may contain /)")
  @RequiresRole(Role.VIEWER)
  @GetMapping("/files/**")
  public JsonNode read(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "scope", required = false) String scope,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      HttpServletRequest request) {
    AgentId agent = agent(agentId);
    ObjectNode arguments = fileArguments(request);
    putIfPresent(arguments, "scope", scope);
    return call(agent, owner(null, ownerKey), READ, arguments);
  }

  @Operation(summary = "Create or overwrite one workspace file")
  @JsonRequestBody(ApiRequests.WorkspaceFileWrite.class)
  @RequiresRole(Role.MEMBER)
  @PutMapping(path = "/files/**", consumes = MediaType.APPLICATION_JSON_VALUE)
  public JsonNode write(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestBody(required = false) JsonNode body,
      HttpServletRequest request) {
    AgentId agent = agent(agentId);
    ObjectNode arguments = fileArguments(request);
    JsonBody fields = fields(body, ApiRequests.WorkspaceFileWrite.class);
    arguments.put("content", fields.requiredString("content"));
    putIfPresent(arguments, "scope", fields.optionalString("scope"));
    return call(agent, owner(fields.optionalString("ownerKey"), ownerKey), WRITE, arguments);
  }

  @Operation(summary = "Turn a workspace file on or off, or move it")
  @JsonRequestBody(ApiRequests.WorkspaceFileMeta.class)
  @RequiresRole(Role.MEMBER)
  @PatchMapping(
      path = "/files/**",
      consumes = {MediaType.APPLICATION_JSON_VALUE, "application/merge-patch+json"})
  public JsonNode updateMeta(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      @RequestBody(required = false) JsonNode body,
      HttpServletRequest request) {
    AgentId agent = agent(agentId);
    ObjectNode arguments = fileArguments(request);
    JsonBody fields = fields(body, ApiRequests.WorkspaceFileMeta.class);
    boolean any = false;
    if (present(fields, "enabled")) {
      arguments.put("enabled", fields.optionalBoolean("enabled", false));
      any = true;
    }
    if (present(fields, "sortOrder")) {
      arguments.put("sortOrder", fields.optionalInt("sortOrder", 0));
      any = true;
    }
    if (!any) {
      throw new BadRequestException("body", "give enabled, sortOrder or both");
    }
    putIfPresent(arguments, "scope", fields.optionalString("scope"));
    return call(agent, owner(fields.optionalString("ownerKey"), ownerKey), UPDATE_META, arguments);
  }

  // ---------------------------------------------------------------- search

  @Operation(summary = "Keyword search over the workspace files")
  @JsonRequestBody(ApiRequests.WorkspaceSearch.class)
  @RequiresRole(Role.VIEWER)
  @PostMapping(path = "/search", consumes = MediaType.APPLICATION_JSON_VALUE)
  public JsonNode search(
      @PathVariable("agentId") String agentId, @RequestBody(required = false) JsonNode body) {
    AgentId agent = agent(agentId);
    JsonBody fields = fields(body, ApiRequests.WorkspaceSearch.class);
    ObjectNode arguments = json.createObjectNode();
    arguments.put("query", fields.requiredString("query"));
    if (present(fields, "limit")) {
      arguments.put("limit", fields.optionalInt("limit", 10));
    }
    putIfPresent(arguments, "scope", fields.optionalString("scope"));
    return call(agent, owner(fields.optionalString("ownerKey"), null), SEARCH, arguments);
  }

  // ---------------------------------------------------------------- snapshots

  @Operation(summary = "Download a ZIP snapshot of the workspace memory")
  @io.swagger.v3.oas.annotations.responses.ApiResponse(
      responseCode = "200",
      description = "the ZIP, as an attachment",
      content =
          @Content(
              mediaType = "application/zip",
              schema = @Schema(type = "string", format = "binary")))
  @RequiresRole(Role.VIEWER)
  @GetMapping(path = "/memory/export", produces = "application/zip")
  public ResponseEntity<byte[]> export(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "scope", required = false) String scope,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      HttpServletRequest request) {
    ObjectNode arguments = json.createObjectNode();
    putIfPresent(arguments, "scope", scope);
    // an admin may export an owner key stored before the host's identifier rule
    OwnerKey owner =
        ownerKey == null ? null : JsonBody.storedOwnerKey(ownerKey, AccessPolicy.callerOf(request));
    JsonNode answer = call(agent(agentId), owner, EXPORT, arguments);
    JsonNode encoded = answer.get("zipBase64");
    if (encoded == null || !encoded.isString()) {
      throw new ProviderFailedException(
          "the workspace provider answered " + EXPORT + " without zipBase64", null);
    }
    byte[] zip;
    try {
      zip = Base64.getDecoder().decode(encoded.stringValue());
    } catch (IllegalArgumentException e) {
      throw new ProviderFailedException(
          "the workspace provider answered " + EXPORT + " with invalid base64", e);
    }
    JsonNode name = answer.get("fileName");
    String fileName =
        name != null && name.isString() && !name.stringValue().isBlank()
            ? name.stringValue()
            : "workspace-memory.zip";
    HttpHeaders headers = new HttpHeaders();
    headers.setContentType(ZIP);
    headers.setContentLength(zip.length);
    headers.setContentDisposition(
        ContentDisposition.attachment().filename(fileName, StandardCharsets.UTF_8).build());
    return new ResponseEntity<>(zip, headers, HttpStatus.OK);
  }

  @Operation(summary = "Classify the entries of a snapshot ZIP without writing")
  @SnapshotZip
  @RequiresRole(Role.MEMBER)
  @PostMapping(IMPORT_PREVIEW)
  public JsonNode previewImport(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "scope", required = false) String scope,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      HttpServletRequest request)
      throws IOException {
    return importZip(agentId, scope, ownerKey, request, true);
  }

  @Operation(summary = "Import a snapshot ZIP: every entry or nothing")
  @SnapshotZip
  @RequiresRole(Role.MEMBER)
  @PostMapping(IMPORT)
  public JsonNode applyImport(
      @PathVariable("agentId") String agentId,
      @RequestParam(name = "scope", required = false) String scope,
      @RequestParam(name = "ownerKey", required = false) String ownerKey,
      HttpServletRequest request)
      throws IOException {
    return importZip(agentId, scope, ownerKey, request, false);
  }

  /** The documented body of both import routes. */
  @Target(ElementType.METHOD)
  @Retention(RetentionPolicy.RUNTIME)
  @io.swagger.v3.oas.annotations.parameters.RequestBody(
      required = true,
      description = "The snapshot ZIP: a multipart part named `file`, or the raw body.",
      content = {
        @Content(
            mediaType = MediaType.MULTIPART_FORM_DATA_VALUE,
            schemaProperties =
                @SchemaProperty(
                    name = "file",
                    schema = @Schema(type = "string", format = "binary"))),
        @Content(
            mediaType = "application/zip",
            schema = @Schema(type = "string", format = "binary"))
      })
  @interface SnapshotZip {}

  private JsonNode importZip(
      String agentId, String scope, String ownerKey, HttpServletRequest request, boolean preview)
      throws IOException {
    AgentId agent = agent(agentId);
    OwnerKey owner = owner(null, ownerKey);
    byte[] zip = uploadedZip(request);
    ObjectNode arguments = json.createObjectNode();
    arguments.put("zipBase64", Base64.getEncoder().encodeToString(zip));
    arguments.put("preview", preview);
    putIfPresent(arguments, "scope", scope);
    return call(agent, owner, IMPORT_TOOL, arguments);
  }

  /** The ZIP of an import: the multipart part {@code file}, or the raw body. */
  private static byte[] uploadedZip(HttpServletRequest request) throws IOException {
    byte[] zip;
    if (request instanceof MultipartHttpServletRequest multipart) {
      MultipartFile file = multipart.getFile("file");
      if (file == null) {
        throw new BadRequestException(
            "file", "the multipart upload has no part named 'file' holding the ZIP");
      }
      zip = file.getBytes();
    } else {
      MediaType type = contentType(request);
      if (type == null || RAW_ZIP_TYPES.stream().noneMatch(t -> t.includes(type))) {
        throw new UnsupportedUpload(
            "send the ZIP as application/zip, or as multipart/form-data with a part named 'file'"
                + (type == null ? "" : ", not " + type));
      }
      zip = request.getInputStream().readAllBytes();
    }
    if (zip.length == 0) {
      throw new BadRequestException("file", "file is required: the ZIP is empty");
    }
    return zip;
  }

  private static MediaType contentType(HttpServletRequest request) {
    String header = request.getContentType();
    if (header == null || header.isBlank()) {
      return null;
    }
    try {
      return MediaType.parseMediaType(header);
    } catch (InvalidMediaTypeException e) {
      throw new UnsupportedUpload("the Content-Type '" + header + "' cannot be parsed");
    }
  }

  // ---------------------------------------------------------------- errors of this controller

  /** A body that is neither a ZIP nor a multipart upload: answered 415. */
  static final class UnsupportedUpload extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnsupportedUpload(String message) {
      super(message);
    }
  }

  @ExceptionHandler(UnsupportedUpload.class)
  ResponseEntity<ApiError> unsupportedUpload(UnsupportedUpload e) {
    return ResponseEntity.status(HttpStatus.UNSUPPORTED_MEDIA_TYPE)
        .contentType(MediaType.APPLICATION_JSON)
        .body(new ApiError(ApiError.UNSUPPORTED_MEDIA_TYPE, "file", e.getMessage()));
  }

  @ExceptionHandler(MultipartException.class)
  ResponseEntity<ApiError> badUpload(MultipartException e) {
    String message =
        e instanceof MaxUploadSizeExceededException tooLarge
            ? "the upload is larger than "
                + tooLarge.getMaxUploadSize()
                + " bytes (memstack.api.max-import-bytes)"
            : "the multipart upload cannot be read: " + rootMessage(e);
    return ResponseEntity.status(HttpStatus.BAD_REQUEST)
        .contentType(MediaType.APPLICATION_JSON)
        .body(new ApiError(ApiError.BAD_REQUEST, "file", message));
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    for (int depth = 0; root.getCause() != null && depth < 20; depth++) {
      root = root.getCause();
    }
    return String.valueOf(root.getMessage());
  }

  // ---------------------------------------------------------------- calling the provider

  /**
   * Calls the standard tool on the workspace provider (checking the caller's right by the tool's
   * declared effect, {@link ToolInvoker}) and returns its JSON answer; a tool's {@code
   * INVALID_ARGUMENT} becomes a 400 naming the REST field.
   */
  private JsonNode call(AgentId agent, OwnerKey owner, String tool, ObjectNode arguments) {
    StackMember member = workspace.member();
    ToolSpec spec = workspaceTool(member, tool);
    try {
      return workspace.call(member, spec, agent, owner, arguments);
    } catch (ToolException e) {
      if (e.kind() == ToolException.Kind.INVALID_ARGUMENT) {
        throw invalidArgument(tool, e);
      }
      throw e;
    } catch (AccessDeniedException | ProviderFailedException | InvalidRequestException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new ProviderFailedException(
          "provider '" + member.id() + "' failed tool '" + tool + "': " + e, e);
    }
  }

  /** The provider's standard tool {@code tool}; 503 when it lists none, though it claims it. */
  private ToolSpec workspaceTool(StackMember member, String tool) {
    Optional<ToolSpec> spec;
    try {
      spec = workspace.providers().tool(member, tool);
    } catch (RuntimeException e) {
      throw new ProviderFailedException(
          "provider '" + member.id() + "' could not list its tools: " + e, e);
    }
    return spec.orElseThrow(() -> workspace.noTool(member, tool));
  }

  /**
   * A 400 from a tool's argument error, on the REST field of the argument the error names ({@link
   * ToolException#field()}: {@code filename} becomes {@code path}, and the message's leading
   * argument name with it). An error without a field (a provider built before 0.2.0) is read by its
   * message's first word when that is an argument name; otherwise it is put on the field the tool
   * reads most ({@code content} of a write, {@code file} of an import), or on none.
   */
  static BadRequestException invalidArgument(String tool, ToolException e) {
    String text = e.getMessage() == null ? "invalid argument" : e.getMessage();
    if (e.field() != null) {
      String field = FIELDS.getOrDefault(e.field(), e.field());
      return new BadRequestException(
          field, text.startsWith(e.field()) ? field + text.substring(e.field().length()) : text);
    }
    int end = 0;
    while (end < text.length() && Character.isLetterOrDigit(text.charAt(end))) {
      end++;
    }
    String argument = text.substring(0, end);
    if (!ARGUMENTS.contains(argument)) {
      String field =
          switch (tool) {
            case WRITE -> "content";
            case IMPORT_TOOL -> "file";
            default -> null;
          };
      return new BadRequestException(field, text);
    }
    String field = FIELDS.getOrDefault(argument, argument);
    return new BadRequestException(field, field + text.substring(end));
  }

  // ---------------------------------------------------------------- request helpers

  private static AgentId agent(String agentId) {
    return JsonBody.agent(agentId);
  }

  /** The owner from the body or the query (they must agree), or {@code null}. */
  private static OwnerKey owner(String fromBody, String fromQuery) {
    if (fromBody != null && fromQuery != null && !fromBody.equals(fromQuery)) {
      throw new BadRequestException(
          "ownerKey", "ownerKey in the body and in the query differ; give it once");
    }
    String key = fromBody != null ? fromBody : fromQuery;
    return key == null ? null : JsonBody.ownerKey(key);
  }

  /** The arguments of a tool on one file: {@code filename}, the checked path of the URL. */
  private ObjectNode fileArguments(HttpServletRequest request) {
    return json.createObjectNode().put("filename", WorkspaceFilePath.of(request));
  }

  /** The body's fields, refusing any that {@code request} does not have. */
  private static JsonBody fields(JsonNode body, Class<? extends Record> request) {
    JsonBody fields = JsonBody.of(body);
    onlyFields(fields, request);
    return fields;
  }

  private static void onlyFields(JsonBody body, Class<? extends Record> request) {
    Set<String> known = ApiRequests.fields(request);
    String allowed = String.join(", ", new java.util.TreeSet<>(known));
    for (Iterator<String> names = body.node().propertyNames().iterator(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        throw new BadRequestException(name, "unknown field '" + name + "'; allowed: " + allowed);
      }
    }
  }

  private static boolean present(JsonBody body, String field) {
    JsonNode value = body.node().get(field);
    return value != null && !value.isNull();
  }

  private static void putIfPresent(ObjectNode arguments, String name, String value) {
    if (value != null) {
      arguments.put(name, value);
    }
  }
}
