package dev.memstack.host.proof;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.memstack.host.testing.FakeHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Mem0 OSS server on one loopback port that really stores what {@code POST /memories} adds (one
 * memory per message, with its {@code user_id} and {@code agent_id}) and searches it by word
 * overlap within the ids a {@code POST /search} names (top level or in {@code filters}). {@link
 * #stop()} closes the port (connections refused) and {@link #start()} opens the same port again
 * with the memories kept. Minimal on purpose: the routes the memstack Mem0 provider uses.
 */
final class StoringMem0Server implements AutoCloseable {

  static {
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private static final JsonMapper JSON = JsonMapper.builder().build();

  record Stored(String id, String text, String userId, String agentId, Instant createdAt) {}

  private final List<Stored> memories = new CopyOnWriteArrayList<>();
  private final AtomicInteger adds = new AtomicInteger();
  private final int port;
  private HttpServer server;
  private ExecutorService executor;

  StoringMem0Server() {
    serve(0);
    port = server.getAddress().getPort();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  synchronized void stop() {
    if (server != null) {
      server.stop(0);
      executor.shutdownNow();
      server = null;
    }
  }

  synchronized void start() {
    if (server == null) {
      serve(port);
    }
  }

  List<Stored> memories() {
    return List.copyOf(memories);
  }

  int adds() {
    return adds.get();
  }

  @Override
  public void close() {
    stop();
  }

  private void serve(int onPort) {
    try {
      HttpServer created =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 50);
      executor = Executors.newFixedThreadPool(4);
      server = FakeHttp.start(created, executor, this::handle);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      String path = exchange.getRequestURI().getRawPath();
      Map<String, String> query = FakeHttp.query(exchange.getRequestURI().getRawQuery());
      byte[] bytes = exchange.getRequestBody().readAllBytes();
      JsonNode body = bytes.length == 0 ? JSON.createObjectNode() : JSON.readTree(bytes);
      String route = exchange.getRequestMethod() + " " + path;
      switch (route) {
        case "POST /memories" -> FakeHttp.sendJson(exchange, 200, add(body));
        case "POST /search" -> FakeHttp.sendJson(exchange, 200, search(body));
        case "GET /memories" -> FakeHttp.sendJson(exchange, 200, list(query));
        case "DELETE /memories" -> FakeHttp.sendJson(exchange, 200, delete(query));
        default ->
            FakeHttp.sendJson(exchange, 404, JSON.createObjectNode().put("detail", "Not Found"));
      }
    } catch (RuntimeException e) {
      FakeHttp.sendJson(exchange, 500, JSON.createObjectNode().put("detail", e.toString()));
    } finally {
      exchange.close();
    }
  }

  private ObjectNode add(JsonNode body) {
    adds.incrementAndGet();
    String userId = text(body, "user_id");
    String agentId = text(body, "agent_id");
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode results = answer.putArray("results");
    for (JsonNode message : body.path("messages")) {
      String content = message.path("content").asString("");
      if (content.isBlank()) {
        continue;
      }
      Stored stored =
          new Stored(UUID.randomUUID().toString(), content, userId, agentId, Instant.now());
      memories.add(stored);
      results.addObject().put("id", stored.id()).put("memory", content).put("event", "ADD");
    }
    return answer;
  }

  private ObjectNode search(JsonNode body) {
    String userId = firstNonNull(text(body.path("filters"), "user_id"), text(body, "user_id"));
    String agentId = firstNonNull(text(body.path("filters"), "agent_id"), text(body, "agent_id"));
    int topK = body.path("top_k").asInt(20);
    Set<String> words = words(body.path("query").asString(""));
    List<Map.Entry<Stored, Double>> hits = new ArrayList<>();
    for (Stored m : memories) {
      if ((userId != null && !userId.equals(m.userId()))
          || (agentId != null && !agentId.equals(m.agentId()))) {
        continue;
      }
      Set<String> own = words(m.text());
      long common = words.stream().filter(own::contains).count();
      if (common > 0) {
        hits.add(Map.entry(m, (double) common / Math.max(1, words.size())));
      }
    }
    hits.sort(Map.Entry.<Stored, Double>comparingByValue().reversed());
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode results = answer.putArray("results");
    for (Map.Entry<Stored, Double> hit : hits.subList(0, Math.min(topK, hits.size()))) {
      json(results.addObject(), hit.getKey()).put("score", Math.min(1.0, hit.getValue()));
    }
    return answer;
  }

  private ObjectNode list(Map<String, String> query) {
    ObjectNode answer = JSON.createObjectNode();
    ArrayNode results = answer.putArray("results");
    for (Stored m : memories) {
      if (Objects.equals(query.get("user_id"), m.userId())) {
        json(results.addObject(), m);
      }
    }
    return answer;
  }

  private ObjectNode delete(Map<String, String> query) {
    String userId = query.get("user_id");
    memories.removeIf(m -> Objects.equals(userId, m.userId()));
    return JSON.createObjectNode().put("message", "All relevant memories deleted");
  }

  private static ObjectNode json(ObjectNode item, Stored m) {
    item.put("id", m.id());
    item.put("memory", m.text());
    item.put("user_id", m.userId());
    if (m.agentId() != null) {
      item.put("agent_id", m.agentId());
    }
    item.put("created_at", m.createdAt().toString());
    return item;
  }

  private static Set<String> words(String text) {
    Set<String> words = new HashSet<>();
    Arrays.stream(text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+"))
        .filter(w -> w.length() > 2)
        .forEach(words::add);
    return words;
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asString();
  }

  private static String firstNonNull(String a, String b) {
    return a != null ? a : b;
  }
}
