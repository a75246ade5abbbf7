package dev.memstack.host.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.memstack.host.testing.FakeHttp;
import dev.memstack.host.testing.LoopbackListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Mem0 OSS server on one loopback port (JDK {@link HttpServer}) that can be switched between
 * three states: {@link #answer() answering}, {@link #down() down} (nothing listens, connections are
 * refused) and {@link #silent() silent} (a socket that accepts connections and never answers). It
 * answers {@code POST /search} with the memories {@link #seed seeded} for the request's {@code
 * user_id}, {@code POST /memories} with an {@code ADD} event per message, {@code GET /memories}
 * with an empty list and {@code DELETE /memories} with a message, and records every request.
 */
final class FakeMem0Server implements AutoCloseable {

  static {
    // As uvicorn: no Nagle delay, or every answer waits ~40 ms for a delayed ACK on loopback.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  static final JsonMapper JSON = JsonMapper.builder().build();
  static final double SCORE = 0.87;
  static final String CREATED_AT = "2026-03-02T09:15:00Z";

  /** One recorded request. */
  record Request(String method, String path, Map<String, String> query, JsonNode body) {

    /** Every {@code user_id} the request names: top level, in {@code filters}, in the query. */
    List<String> userIds() {
      List<String> ids = new ArrayList<>();
      if (body != null && body.hasNonNull("user_id")) {
        ids.add(body.get("user_id").asString());
      }
      if (body != null && body.path("filters").hasNonNull("user_id")) {
        ids.add(body.get("filters").get("user_id").asString());
      }
      if (query.containsKey("user_id")) {
        ids.add(query.get("user_id"));
      }
      return ids;
    }
  }

  private final int port;
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final Map<String, List<ObjectNode>> memories = new ConcurrentHashMap<>();
  private final List<Socket> silentConnections = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private ExecutorService executor;
  private LoopbackListener silentListener;

  private FakeMem0Server() {
    serve(0);
    this.port = server.getAddress().getPort();
  }

  /** A server answering on a free loopback port. */
  static FakeMem0Server start() {
    return new FakeMem0Server();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  /** Answers again on the same port. */
  synchronized void answer() {
    closeSilent();
    if (server == null) {
      serve(port);
    }
  }

  /** Nothing listens on the port any more: connections are refused. */
  synchronized void down() {
    closeSilent();
    stopServer();
  }

  /** A socket on the port accepts connections and never reads or answers anything. */
  synchronized void silent() {
    stopServer();
    if (silentListener != null) {
      return;
    }
    silentListener =
        LoopbackListener.open(
            port, "fake-mem0-silent", (from, client) -> silentConnections.add(client));
  }

  /** Connections the silent socket accepted so far. */
  int silentConnections() {
    return silentConnections.size();
  }

  /** Makes {@code text} a memory of {@code userId}; returns its id. */
  String seed(String userId, String text) {
    String id = UUID.randomUUID().toString();
    ObjectNode memory = JSON.createObjectNode();
    memory.put("id", id);
    memory.put("memory", text);
    memories.computeIfAbsent(userId, key -> new CopyOnWriteArrayList<>()).add(memory);
    return id;
  }

  /** The recorded requests of one route, oldest first. */
  List<Request> requests(String method, String path) {
    return requests.stream()
        .filter(r -> r.method().equals(method) && r.path().equals(path))
        .toList();
  }

  @Override
  public synchronized void close() {
    down();
  }

  private void serve(int onPort) {
    try {
      HttpServer created = bind(onPort);
      executor = Executors.newCachedThreadPool();
      server = FakeHttp.start(created, executor, this::handle);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Binds the port; right after the silent socket closed it can take a moment to be free. */
  private static HttpServer bind(int onPort) throws IOException {
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort);
    long giveUp = System.nanoTime() + 10_000_000_000L;
    while (true) {
      try {
        return HttpServer.create(address, 50);
      } catch (BindException e) {
        if (System.nanoTime() > giveUp) {
          throw e;
        }
        System.out.println("[fake mem0] port " + onPort + " not free yet: " + e.getMessage());
        try {
          Thread.sleep(100);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private void stopServer() {
    if (server != null) {
      server.stop(0);
      executor.shutdownNow();
      server = null;
      executor = null;
    }
  }

  private void closeSilent() {
    if (silentListener != null) {
      silentListener.close();
      try {
        for (Socket connection : silentConnections) {
          connection.close();
        }
        // the socket is released only once the thread blocked in accept() has left it
        silentListener.awaitReleased(Duration.ofSeconds(5));
      } catch (IOException e) {
        // closing is best effort
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      silentListener = null;
      silentConnections.clear();
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      Request request = record(exchange);
      String route = request.method() + " " + request.path();
      switch (route) {
        case "POST /search" -> FakeHttp.sendJson(exchange, 200, search(request));
        case "POST /memories" -> FakeHttp.sendJson(exchange, 200, add(request));
        case "GET /memories" -> FakeHttp.sendJson(exchange, 200, results());
        case "DELETE /memories" ->
            FakeHttp.sendJson(exchange, 200, message("All relevant memories deleted"));
        default -> FakeHttp.sendJson(exchange, 404, message("Not Found"));
      }
    } catch (RuntimeException e) {
      FakeHttp.sendJson(exchange, 500, message("fake server failed: " + e));
    } finally {
      exchange.close();
    }
  }

  private ObjectNode search(Request request) {
    ObjectNode answer = results();
    ArrayNode results = (ArrayNode) answer.get("results");
    for (String userId : request.userIds().stream().distinct().toList()) {
      for (ObjectNode memory : memories.getOrDefault(userId, List.of())) {
        ObjectNode hit = memory.deepCopy();
        hit.put("score", SCORE);
        hit.put("created_at", CREATED_AT);
        hit.put("user_id", userId);
        results.add(hit);
      }
    }
    return answer;
  }

  private static ObjectNode add(Request request) {
    ObjectNode answer = results();
    ArrayNode results = (ArrayNode) answer.get("results");
    for (JsonNode message : request.body().path("messages")) {
      String content = message.path("content").asString("");
      if (!content.isBlank()) {
        results
            .addObject()
            .put("id", UUID.randomUUID().toString())
            .put("memory", content)
            .put("event", "ADD");
      }
    }
    return answer;
  }

  private static ObjectNode results() {
    ObjectNode answer = JSON.createObjectNode();
    answer.putArray("results");
    return answer;
  }

  private static ObjectNode message(String text) {
    ObjectNode answer = JSON.createObjectNode();
    answer.put("message", text);
    return answer;
  }

  private Request record(HttpExchange exchange) throws IOException {
    Map<String, String> query = FakeHttp.query(exchange.getRequestURI().getRawQuery());
    byte[] bytes = exchange.getRequestBody().readAllBytes();
    Request request =
        new Request(
            exchange.getRequestMethod(),
            exchange.getRequestURI().getRawPath(),
            Map.copyOf(query),
            bytes.length == 0 ? null : JSON.readTree(bytes));
    requests.add(request);
    return request;
  }
}
