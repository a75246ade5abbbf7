package dev.memstack.host.api;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * An Ollama {@code /api/chat} on loopback whose answer a test chooses from the request's system
 * prompt (one JSON object, or NDJSON with a final {@code done:true} line when the request streams).
 * Records the system prompts it saw.
 */
final class ScriptedOllama implements AutoCloseable {

  private static final JsonMapper JSON = JsonMapper.shared();

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final Function<String, String> answers;
  private final List<String> systems = new CopyOnWriteArrayList<>();

  /** {@code answers} maps a request's system prompt to the assistant's text. */
  ScriptedOllama(Function<String, String> answers) throws IOException {
    this.answers = answers;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/api/chat", this::chat);
    server.setExecutor(threads);
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  List<String> systemPrompts() {
    return List.copyOf(systems);
  }

  private void chat(HttpExchange exchange) throws IOException {
    try (exchange) {
      JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
      String system = "";
      for (JsonNode message : body.path("messages")) {
        if ("system".equals(message.path("role").asString())) {
          system = message.path("content").asString();
        }
      }
      systems.add(system);
      String model = body.path("model").asString();
      String text = answers.apply(system);
      String payload;
      String type;
      if (body.path("stream").asBoolean(true)) {
        payload =
            JSON.writeValueAsString(chunk(model, text, false))
                + "\n"
                + JSON.writeValueAsString(chunk(model, "", true))
                + "\n";
        type = "application/x-ndjson";
      } else {
        payload = JSON.writeValueAsString(chunk(model, text, true));
        type = "application/json";
      }
      byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", type);
      exchange.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  private static ObjectNode chunk(String model, String content, boolean done) {
    ObjectNode chunk = JSON.createObjectNode();
    chunk.put("model", model);
    chunk.put("created_at", Instant.now().toString());
    ObjectNode message = chunk.putObject("message");
    message.put("role", "assistant");
    message.put("content", content);
    chunk.put("done", done);
    if (done) {
      chunk.put("done_reason", "stop");
      chunk.put("total_duration", 2_000_000L);
      chunk.put("load_duration", 1000L);
      chunk.put("prompt_eval_count", 12);
      chunk.put("prompt_eval_duration", 500_000L);
      chunk.put("eval_count", 5);
      chunk.put("eval_duration", 1_000_000L);
    }
    return chunk;
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
