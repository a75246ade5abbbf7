package dev.memstack.host.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What the fake servers of the host tests (Mem0, Ollama) share: reading queries, answering. */
public final class FakeHttp {

  private static final JsonMapper JSON = JsonMapper.shared();

  private FakeHttp() {}

  /** Serves every path of {@code server} with {@code handler} on {@code executor}; starts it. */
  public static HttpServer start(HttpServer server, ExecutorService executor, HttpHandler handler) {
    server.setExecutor(executor);
    server.createContext("/", handler);
    server.start();
    return server;
  }

  /** The decoded parameters of a raw query string ({@code null}: none), in order. */
  public static Map<String, String> query(String raw) {
    Map<String, String> query = new LinkedHashMap<>();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        query.put(
            URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
            eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return query;
  }

  /** Answers {@code body} as JSON with {@code status}. */
  public static void sendJson(HttpExchange exchange, int status, JsonNode body) throws IOException {
    send(exchange, status, "application/json", JSON.writeValueAsString(body));
  }

  /** Answers {@code body} with {@code status} and {@code type}. */
  public static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
