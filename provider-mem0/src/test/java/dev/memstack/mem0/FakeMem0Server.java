package dev.memstack.mem0;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Mem0 server on loopback that answers like one of three server generations, really stores what
 * it is given and searches it by word overlap per {@code user_id}/{@code agent_id}. Every request
 * is recorded (method, path, query, headers, JSON body) so tests can check it field by field, and
 * {@link #override} replaces the answer of one route to inject faults.
 *
 * <ul>
 *   <li>{@link Generation#CURRENT_OSS}: routes without {@code /v1} and without trailing slashes
 *       ({@code /memories/} is a 404); {@code X-API-Key} auth when a key is set; search reads the
 *       ids from {@code filters} (top-level ids merged), {@code top_k} (default 20) and {@code
 *       threshold} (outside [0,1] is a 400); erasing an owner needs the admin key; every answer
 *       carries {@code X-Request-ID}.
 *   <li>{@link Generation#OLD_OSS}: no auth; search needs the ids top-level (ids only in {@code
 *       filters} is a 500) and knows neither {@code top_k} nor {@code limit} (up to 100 results);
 *       answers carry {@code relations}; adding a text the owner already has gives an {@code
 *       UPDATE} event; timestamps without zone.
 *   <li>{@link Generation#PLATFORM}: {@code /v1}-{@code /v3} paths with trailing slashes, {@code
 *       Authorization: Token}; adds are asynchronous ({@code PENDING}, visible after {@link
 *       #processPending()}) unless {@code infer} is false; each memory belongs to one entity (user
 *       or agent), so an AND of {@code user_id} and {@code agent_id} matches nothing; top-level ids
 *       on search are a 400; default {@code top_k} 10 and threshold 0.1.
 * </ul>
 */
final class FakeMem0Server implements AutoCloseable {

  enum Generation {
    CURRENT_OSS,
    OLD_OSS,
    PLATFORM
  }

  /** One recorded request. Header names are lower case. */
  record Request(
      String method,
      String path,
      Map<String, String> query,
      Map<String, String> headers,
      JsonNode body) {

    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  /** Answers one request in place of the fake's own logic. */
  @FunctionalInterface
  interface Responder {
    void respond(HttpExchange exchange, Request request) throws Exception;
  }

  /** One stored memory. */
  static final class Stored {
    final String id = UUID.randomUUID().toString();
    volatile String text;
    final String userId;
    final String agentId;
    final String runId;
    final Map<String, Object> metadata;
    final Instant createdAt;
    volatile boolean pending;

    Stored(
        String text,
        String userId,
        String agentId,
        String runId,
        Map<String, Object> metadata,
        Instant createdAt) {
      this.text = text;
      this.userId = userId;
      this.agentId = agentId;
      this.runId = runId;
      this.metadata = metadata;
      this.createdAt = createdAt;
    }
  }

  static final JsonMapper JSON = JsonMapper.builder().build();

  static {
    // Like uvicorn: no Nagle delay, or every answer waits ~40 ms for a delayed ACK on loopback.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private final Generation generation;
  private final HttpServer server;
  private final ExecutorService executor;
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final List<Stored> memories = new CopyOnWriteArrayList<>();
  private final Map<String, Responder> overrides = new ConcurrentHashMap<>();
  private final AtomicInteger requestIds = new AtomicInteger();
  private volatile String apiKey;
  private volatile String adminKey;

  private FakeMem0Server(Generation generation) throws IOException {
    this.generation = generation;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    this.executor = Executors.newCachedThreadPool();
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  static FakeMem0Server start(Generation generation) {
    try {
      return new FakeMem0Server(generation);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  Generation generation() {
    return generation;
  }

  /** Requires this key (X-API-Key on OSS, Authorization: Token on the Platform). */
  FakeMem0Server requireApiKey(String key) {
    this.apiKey = key;
    return this;
  }

  /** On the current OSS server, only this key may erase an owner (others get 403). */
  FakeMem0Server adminKey(String key) {
    this.adminKey = key;
    return this;
  }

  /** Answers {@code method path} with {@code responder} from now on. */
  FakeMem0Server override(String method, String path, Responder responder) {
    overrides.put(method + " " + path, responder);
    return this;
  }

  void clearOverrides() {
    overrides.clear();
  }

  List<Request> requests() {
    return List.copyOf(requests);
  }

  List<Request> requests(String method, String path) {
    return requests.stream()
        .filter(r -> r.method().equals(method) && r.path().equals(path))
        .toList();
  }

  Request last(String method, String path) {
    List<Request> matching = requests(method, path);
    if (matching.isEmpty()) {
      throw new AssertionError("no " + method + " " + path + " request; got " + describe(requests));
    }
    return matching.get(matching.size() - 1);
  }

  void clearRequests() {
    requests.clear();
  }

  List<Stored> memories() {
    return List.copyOf(memories);
  }

  List<Stored> memoriesOf(String userId) {
    return memories.stream().filter(m -> userId.equals(m.userId)).toList();
  }

  /** Stores a memory directly, as if an earlier add had produced it. */
  Stored seed(String userId, String agentId, String text, Map<String, Object> metadata) {
    Stored stored =
        new Stored(
            text,
            userId,
            agentId,
            null,
            metadata == null ? Map.of() : metadata,
            Instant.parse("2026-03-02T09:15:00Z"));
    memories.add(stored);
    return stored;
  }

  /** Runs the Platform's queued adds: their memories become searchable. */
  void processPending() {
    memories.forEach(m -> m.pending = false);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  private static String describe(List<Request> requests) {
    return requests.stream().map(r -> r.method() + " " + r.path()).collect(Collectors.toList())
        + "";
  }

  // ---------------------------------------------------------------- request handling

  private void handle(HttpExchange exchange) throws IOException {
    try {
      Request request = record(exchange);
      exchange.getResponseHeaders().set("X-Request-ID", "req-" + requestIds.incrementAndGet());
      Responder override = overrides.get(request.method() + " " + request.path());
      if (override != null) {
        override.respond(exchange, request);
        return;
      }
      if (!authorized(request)) {
        send(exchange, 401, json("detail", "Invalid API key."));
        return;
      }
      switch (generation) {
        case CURRENT_OSS, OLD_OSS -> oss(exchange, request);
        case PLATFORM -> platform(exchange, request);
        default -> throw new IllegalStateException();
      }
    } catch (Exception e) {
      try {
        send(exchange, 500, json("detail", "fake server failed: " + e));
      } catch (IOException ignored) {
        // the client went away
      }
    } finally {
      exchange.close();
    }
  }

  private Request record(HttpExchange exchange) throws IOException {
    Map<String, String> headers = new LinkedHashMap<>();
    exchange
        .getRequestHeaders()
        .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
    Map<String, String> query = new LinkedHashMap<>();
    String rawQuery = exchange.getRequestURI().getRawQuery();
    if (rawQuery != null) {
      for (String pair : rawQuery.split("&")) {
        int eq = pair.indexOf('=');
        String name = eq < 0 ? pair : pair.substring(0, eq);
        String value = eq < 0 ? "" : pair.substring(eq + 1);
        query.put(
            URLDecoder.decode(name, StandardCharsets.UTF_8),
            URLDecoder.decode(value, StandardCharsets.UTF_8));
      }
    }
    byte[] bytes = exchange.getRequestBody().readAllBytes();
    JsonNode body = bytes.length == 0 ? null : JSON.readTree(bytes);
    Request request =
        new Request(
            exchange.getRequestMethod(),
            exchange.getRequestURI().getRawPath(),
            Map.copyOf(query),
            headers,
            body);
    requests.add(request);
    return request;
  }

  private boolean authorized(Request request) {
    String key = apiKey;
    if (key == null || generation == Generation.OLD_OSS) {
      return true;
    }
    if (generation == Generation.PLATFORM) {
      return ("Token " + key).equals(request.header("authorization"));
    }
    String authorization = request.header("authorization");
    if (authorization != null && authorization.startsWith("Token ")) {
      return false;
    }
    return key.equals(request.header("x-api-key"))
        || (adminKey != null && adminKey.equals(request.header("x-api-key")));
  }

  // ---------------------------------------------------------------- OSS server

  private void oss(HttpExchange exchange, Request request) throws IOException {
    String route = request.method() + " " + request.path();
    if (route.equals("POST /memories")) {
      ossAdd(exchange, request);
    } else if (route.equals("POST /search")) {
      ossSearch(exchange, request);
    } else if (route.equals("GET /memories")) {
      ossList(exchange, request);
    } else if (route.equals("DELETE /memories")) {
      ossDeleteAll(exchange, request);
    } else if (request.method().equals("DELETE") && request.path().startsWith("/memories/")) {
      String id = request.path().substring("/memories/".length());
      boolean removed = memories.removeIf(m -> m.id.equals(id));
      send(
          exchange,
          removed ? 200 : 404,
          json("message", removed ? "Memory deleted successfully" : "Memory not found"));
    } else {
      send(exchange, 404, json("detail", "Not Found"));
    }
  }

  private void ossAdd(HttpExchange exchange, Request request) throws IOException {
    JsonNode body = request.body();
    String userId = text(body, "user_id");
    String agentId = text(body, "agent_id");
    String runId = text(body, "run_id");
    if (userId == null && agentId == null && runId == null) {
      send(
          exchange,
          400,
          json("detail", "At least one identifier (user_id, agent_id, run_id) is required."));
      return;
    }
    Map<String, Object> metadata = metadata(body.get("metadata"));
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode results = answer.putArray("results");
    for (JsonNode message : body.path("messages")) {
      String content = message.path("content").asString("");
      if (content.isBlank()) {
        continue;
      }
      Stored same =
          memories.stream()
              .filter(
                  m ->
                      m.text.equals(content)
                          && java.util.Objects.equals(m.userId, userId)
                          && java.util.Objects.equals(m.agentId, agentId))
              .findFirst()
              .orElse(null);
      if (same != null && generation == Generation.OLD_OSS) {
        results
            .addObject()
            .put("id", same.id)
            .put("memory", content)
            .put("event", "UPDATE")
            .put("previous_memory", same.text);
        continue;
      }
      Stored stored = new Stored(content, userId, agentId, runId, metadata, Instant.now());
      memories.add(stored);
      results.addObject().put("id", stored.id).put("memory", content).put("event", "ADD");
    }
    if (generation == Generation.OLD_OSS) {
      ObjectNode relations = answer.putObject("relations");
      relations.putArray("deleted_entities");
      relations.putArray("added_entities").addArray().addObject().put("source", userId);
    }
    send(exchange, 200, answer);
  }

  private void ossSearch(HttpExchange exchange, Request request) throws IOException {
    JsonNode body = request.body();
    Map<String, String> ids = new LinkedHashMap<>();
    for (String key : List.of("user_id", "agent_id", "run_id")) {
      String topLevel = text(body, key);
      if (generation == Generation.CURRENT_OSS) {
        String inFilters = text(body.path("filters"), key);
        if (inFilters != null) {
          ids.put(key, inFilters);
        }
      }
      if (topLevel != null) {
        ids.put(key, topLevel);
      }
    }
    if (ids.isEmpty()) {
      int status = generation == Generation.OLD_OSS ? 500 : 400;
      send(
          exchange,
          status,
          json("detail", "At least one of 'user_id', 'agent_id' or 'run_id' must be specified."));
      return;
    }
    int topK = generation == Generation.OLD_OSS ? 100 : body.path("top_k").asInt(20);
    Double threshold = null;
    if (generation == Generation.CURRENT_OSS && body.hasNonNull("threshold")) {
      threshold = body.get("threshold").asDouble();
      if (threshold < 0 || threshold > 1) {
        send(exchange, 400, json("detail", "threshold must be within [0, 1]"));
        return;
      }
    }
    String query = body.path("query").asString("");
    List<Map.Entry<Stored, Double>> hits = new ArrayList<>();
    for (Stored m : memories) {
      if (m.pending
          || !matches(m.userId, ids.get("user_id"))
          || !matches(m.agentId, ids.get("agent_id"))
          || !matches(m.runId, ids.get("run_id"))) {
        continue;
      }
      double score = overlap(query, m.text);
      if (score > 0 && (threshold == null || score >= threshold)) {
        hits.add(Map.entry(m, score));
      }
    }
    hits.sort(Map.Entry.<Stored, Double>comparingByValue().reversed());
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode results = answer.putArray("results");
    for (Map.Entry<Stored, Double> hit : hits.subList(0, Math.min(topK, hits.size()))) {
      ObjectNode item = ossMemory(hit.getKey());
      item.put("score", hit.getValue());
      results.add(item);
    }
    if (generation == Generation.OLD_OSS) {
      answer.putArray("relations");
    }
    send(exchange, 200, answer);
  }

  private void ossList(HttpExchange exchange, Request request) throws IOException {
    String userId = request.query().get("user_id");
    String agentId = request.query().get("agent_id");
    if (userId == null && agentId == null) {
      send(exchange, 400, json("detail", "At least one identifier is required."));
      return;
    }
    int topK = Integer.parseInt(request.query().getOrDefault("top_k", "100"));
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode results = answer.putArray("results");
    memories.stream()
        .filter(m -> matches(m.userId, userId) && matches(m.agentId, agentId))
        .limit(topK)
        .forEach(m -> results.add(ossMemory(m)));
    send(exchange, 200, answer);
  }

  private void ossDeleteAll(HttpExchange exchange, Request request) throws IOException {
    if (generation == Generation.CURRENT_OSS
        && adminKey != null
        && !adminKey.equals(request.header("x-api-key"))) {
      send(exchange, 403, json("detail", "Admin role required."));
      return;
    }
    String userId = request.query().get("user_id");
    if (userId == null) {
      send(exchange, 400, json("detail", "At least one identifier is required."));
      return;
    }
    memories.removeIf(m -> userId.equals(m.userId));
    send(exchange, 200, json("message", "All relevant memories deleted"));
  }

  private ObjectNode ossMemory(Stored m) {
    ObjectNode item = JSON.createObjectNode();
    item.put("id", m.id);
    item.put("memory", m.text);
    item.put("hash", Integer.toHexString(m.text.hashCode()));
    if (m.metadata.isEmpty()) {
      item.putNull("metadata");
    } else {
      item.set("metadata", JSON.valueToTree(m.metadata));
    }
    item.put(
        "created_at",
        generation == Generation.OLD_OSS
            ? LocalDateTime.ofInstant(m.createdAt, ZoneOffset.UTC).toString()
            : m.createdAt.atOffset(ZoneOffset.ofHours(-7)).toString());
    item.putNull("updated_at");
    if (m.userId != null) {
      item.put("user_id", m.userId);
    }
    if (m.agentId != null) {
      item.put("agent_id", m.agentId);
    }
    return item;
  }

  // ---------------------------------------------------------------- Platform

  private void platform(HttpExchange exchange, Request request) throws IOException {
    String route = request.method() + " " + request.path();
    switch (route) {
      case "GET /v1/ping/" -> {
        ObjectNode answer = json("status", "ok");
        answer.put("org_id", "org-1").put("project_id", "proj-1");
        send(exchange, 200, answer);
      }
      case "POST /v3/memories/add/" -> platformAdd(exchange, request);
      case "POST /v3/memories/search/" -> platformSearch(exchange, request);
      case "POST /v3/memories/" -> platformList(exchange, request);
      case "DELETE /v1/memories/" -> {
        String userId = request.query().get("user_id");
        String agentId = request.query().get("agent_id");
        if (userId == null && agentId == null) {
          send(exchange, 400, json("error", "at least one entity id is required"));
          return;
        }
        memories.removeIf(
            m ->
                (userId != null && userId.equals(m.userId))
                    || (agentId != null && agentId.equals(m.agentId)));
        ObjectNode answer = json("message", "Delete in progress. This may take some time.");
        answer.put("event_id", UUID.randomUUID().toString());
        send(exchange, 200, answer);
      }
      default -> send(exchange, 404, json("detail", "Not found."));
    }
  }

  private void platformAdd(HttpExchange exchange, Request request) throws IOException {
    JsonNode body = request.body();
    String userId = text(body, "user_id");
    String agentId = text(body, "agent_id");
    if (userId == null && agentId == null && text(body, "run_id") == null) {
      ObjectNode error = json("error", "400 Bad Request");
      error.putObject("details").put("message", "Invalid input data.");
      send(exchange, 400, error);
      return;
    }
    boolean infer = !body.has("infer") || body.get("infer").asBoolean(true);
    Map<String, Object> metadata = metadata(body.get("metadata"));
    ArrayNode results = JSON.createArrayNode();
    for (JsonNode message : body.path("messages")) {
      String content = message.path("content").asString("");
      if (content.isBlank()) {
        continue;
      }
      // One entity per memory: a user memory and, when an agent is given, an agent memory.
      List<Stored> made = new ArrayList<>();
      if (userId != null) {
        made.add(new Stored(content, userId, null, null, metadata, Instant.now()));
      }
      if (agentId != null) {
        made.add(new Stored(content, null, agentId, null, metadata, Instant.now()));
      }
      for (Stored stored : made) {
        stored.pending = infer;
        memories.add(stored);
        if (!infer) {
          ObjectNode item = results.addObject().put("id", stored.id).put("event", "ADD");
          item.putObject("data").put("memory", content);
        }
      }
    }
    if (infer) {
      ObjectNode answer = json("event_id", UUID.randomUUID().toString());
      answer.put("status", "PENDING");
      send(exchange, 200, answer);
    } else {
      ObjectNode answer = json("message", "Memories stored.");
      answer.put("status", "SUCCEEDED");
      answer.set("results", results);
      send(exchange, 200, answer);
    }
  }

  private void platformSearch(HttpExchange exchange, Request request) throws IOException {
    JsonNode body = request.body();
    for (String key : List.of("user_id", "agent_id", "app_id", "run_id")) {
      if (body.has(key)) {
        send(
            exchange,
            400,
            json("error", "Top-level entity parameters are not supported; use filters"));
        return;
      }
    }
    List<Map<String, String>> conditions = conditions(body.get("filters"));
    if (conditions == null || conditions.isEmpty()) {
      send(exchange, 400, json("error", "filters must include at least one entity id"));
      return;
    }
    if (body.path("query").asString("").isBlank()) {
      send(exchange, 400, json("error", "query must not be empty"));
      return;
    }
    int topK = body.path("top_k").asInt(10);
    double threshold = body.path("threshold").asDouble(0.1);
    String query = body.path("query").asString();
    List<Map.Entry<Stored, Double>> hits = new ArrayList<>();
    for (Stored m : memories) {
      if (m.pending || !conditions.stream().allMatch(c -> holds(c, m))) {
        continue;
      }
      double score = overlap(query, m.text);
      if (score > 0 && score >= threshold) {
        hits.add(Map.entry(m, score));
      }
    }
    hits.sort(Map.Entry.<Stored, Double>comparingByValue().reversed());
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode results = answer.putArray("results");
    for (Map.Entry<Stored, Double> hit : hits.subList(0, Math.min(topK, hits.size()))) {
      Stored m = hit.getKey();
      ObjectNode item = results.addObject();
      item.put("id", m.id);
      item.put("memory", m.text);
      item.put("user_id", m.userId);
      item.put("agent_id", m.agentId);
      item.putNull("run_id");
      item.set("metadata", JSON.valueToTree(m.metadata));
      item.put("score", hit.getValue());
      item.putArray("categories").add("misc");
      item.put("created_at", m.createdAt.toString());
      item.put("updated_at", m.createdAt.toString());
    }
    send(exchange, 200, answer);
  }

  private void platformList(HttpExchange exchange, Request request) throws IOException {
    List<Map<String, String>> conditions = conditions(request.body().get("filters"));
    if (conditions == null || conditions.isEmpty()) {
      send(exchange, 400, json("error", "filters must include at least one entity id"));
      return;
    }
    List<Stored> matching =
        memories.stream().filter(m -> conditions.stream().allMatch(c -> holds(c, m))).toList();
    int pageSize = Integer.parseInt(request.query().getOrDefault("page_size", "100"));
    ObjectNode answer = JSON.createObjectNode();
    answer.put("count", matching.size());
    answer.putNull("next");
    answer.putNull("previous");
    ArrayNode results = answer.putArray("results");
    matching.stream()
        .limit(pageSize)
        .forEach(m -> results.addObject().put("id", m.id).put("memory", m.text));
    send(exchange, 200, answer);
  }

  /** {@code {"user_id":"x"}} or {@code {"AND":[{"user_id":"x"},{"agent_id":"y"}]}}. */
  private static List<Map<String, String>> conditions(JsonNode filters) {
    if (filters == null || !filters.isObject()) {
      return null;
    }
    List<Map<String, String>> conditions = new ArrayList<>();
    if (filters.has("AND")) {
      for (JsonNode part : filters.get("AND")) {
        part.properties().forEach(e -> conditions.add(Map.of(e.getKey(), e.getValue().asString())));
      }
    } else {
      filters
          .properties()
          .forEach(e -> conditions.add(Map.of(e.getKey(), e.getValue().asString())));
    }
    return conditions;
  }

  private static boolean holds(Map<String, String> condition, Stored m) {
    Map.Entry<String, String> c = condition.entrySet().iterator().next();
    return switch (c.getKey()) {
      case "user_id" -> c.getValue().equals(m.userId);
      case "agent_id" -> c.getValue().equals(m.agentId);
      case "run_id" -> c.getValue().equals(m.runId);
      default -> false;
    };
  }

  // ---------------------------------------------------------------- helpers

  private static boolean matches(String stored, String wanted) {
    return wanted == null || wanted.equals(stored);
  }

  /** Share of the query's distinct words that the text contains. */
  static double overlap(String query, String text) {
    Set<String> q = words(query);
    if (q.isEmpty()) {
      return 0;
    }
    Set<String> t = words(text);
    long common = q.stream().filter(t::contains).count();
    return (double) common / q.size();
  }

  private static Set<String> words(String text) {
    return new HashSet<>(
        Arrays.stream(text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+"))
            .filter(w -> !w.isBlank())
            .toList());
  }

  private static String text(JsonNode node, String field) {
    if (node == null) {
      return null;
    }
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asString();
  }

  private static Map<String, Object> metadata(JsonNode node) {
    if (node == null || !node.isObject()) {
      return Map.of();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    node.properties().forEach(e -> out.put(e.getKey(), e.getValue().asString()));
    return out;
  }

  static ObjectNode json(String field, String value) {
    ObjectNode node = JSON.createObjectNode();
    node.put(field, value);
    return node;
  }

  static void send(HttpExchange exchange, int status, JsonNode body) throws IOException {
    sendRaw(exchange, status, JSON.writeValueAsBytes(body));
  }

  static void sendRaw(HttpExchange exchange, int status, byte[] bytes) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }
}
