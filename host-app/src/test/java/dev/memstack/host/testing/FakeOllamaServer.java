package dev.memstack.host.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An Ollama server on loopback for tests, answering the real wire format of {@code POST /api/embed}
 * and {@code POST /api/chat} (one JSON object, or NDJSON chunks when the request streams).
 * Embeddings are word-hash vectors of {@link #dimension()} floats, so similar texts get similar
 * vectors; the chat answer is {@code "echo: <last user message>"} unless {@link #answerChats}
 * scripts it from the system prompt. Requests are recorded; a delay or an HTTP error can be set for
 * the next answers.
 */
public final class FakeOllamaServer implements AutoCloseable {

  /** One request the server received. */
  public record Request(String path, JsonNode body) {}

  private static final JsonMapper JSON = JsonMapper.shared();

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final int dimension;
  private volatile Duration delay = Duration.ZERO;
  private volatile int failWithStatus;
  private volatile Function<String, String> chatBySystemPrompt;
  private volatile Duration chunkDelay = Duration.ZERO;

  public FakeOllamaServer(int dimension) throws IOException {
    this.dimension = dimension;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/api/embed", exchange -> handle(exchange, this::embed));
    server.createContext("/api/chat", exchange -> handle(exchange, this::chat));
    server.setExecutor(threads);
    server.start();
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public int dimension() {
    return dimension;
  }

  public List<Request> requests() {
    return List.copyOf(requests);
  }

  public List<Request> requests(String path) {
    return requests.stream().filter(r -> r.path().equals(path)).toList();
  }

  public void delayAnswers(Duration newDelay) {
    delay = newDelay;
  }

  /** Waits this long before each streamed chunk. */
  public void delayChunks(Duration newDelay) {
    chunkDelay = newDelay;
  }

  public void failWith(int status) {
    failWithStatus = status;
  }

  /** Answers every chat with {@code bySystemPrompt} applied to the request's system prompt. */
  public void answerChats(Function<String, String> bySystemPrompt) {
    chatBySystemPrompt = bySystemPrompt;
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }

  /** The vector the server answers for a text, before any normalisation. */
  public float[] vectorOf(String text) {
    float[] vector = new float[dimension];
    vector[0] = 0.5f;
    for (String word : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
      if (!word.isEmpty()) {
        vector[Math.floorMod(word.hashCode(), dimension)] += 1f;
      }
    }
    return vector;
  }

  private interface Handler {
    void answer(HttpExchange exchange, JsonNode body) throws IOException;
  }

  private void handle(HttpExchange exchange, Handler handler) throws IOException {
    try (exchange) {
      if (!"POST".equals(exchange.getRequestMethod())) {
        FakeHttp.send(exchange, 405, "application/json", "{\"error\":\"method not allowed\"}");
        return;
      }
      JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
      requests.add(new Request(exchange.getRequestURI().getPath(), body));
      sleep(delay);
      if (failWithStatus != 0) {
        FakeHttp.send(
            exchange, failWithStatus, "application/json", "{\"error\":\"model is on fire\"}");
        return;
      }
      handler.answer(exchange, body);
    }
  }

  private void embed(HttpExchange exchange, JsonNode body) throws IOException {
    List<String> inputs = new ArrayList<>();
    JsonNode input = body.path("input");
    if (input.isArray()) {
      input.forEach(node -> inputs.add(node.asString()));
    } else {
      inputs.add(input.asString());
    }
    ObjectNode answer = JSON.createObjectNode();
    answer.put("model", body.path("model").asString());
    ArrayNode embeddings = answer.putArray("embeddings");
    for (String text : inputs) {
      ArrayNode vector = embeddings.addArray();
      for (float value : vectorOf(text)) {
        vector.add(value);
      }
    }
    answer.put("total_duration", 1_000_000L);
    answer.put("load_duration", 1000L);
    answer.put("prompt_eval_count", inputs.size() * 4);
    FakeHttp.send(exchange, 200, "application/json", JSON.writeValueAsString(answer));
  }

  private void chat(HttpExchange exchange, JsonNode body) throws IOException {
    String model = body.path("model").asString();
    Function<String, String> script = chatBySystemPrompt;
    String answer =
        script == null
            ? "echo: " + lastMessage(body, "user")
            : script.apply(lastMessage(body, "system"));
    int promptTokens = promptTokens(body);
    if (!body.path("stream").asBoolean(true)) {
      ObjectNode done = chunk(model, answer, true);
      done.put("prompt_eval_count", promptTokens);
      FakeHttp.send(exchange, 200, "application/json", JSON.writeValueAsString(done));
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", "application/x-ndjson");
    exchange.sendResponseHeaders(200, 0);
    try (OutputStream out = exchange.getResponseBody()) {
      for (String piece : answer.split("(?<= )")) {
        sleep(chunkDelay);
        out.write(
            (JSON.writeValueAsString(chunk(model, piece, false)) + "\n")
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
      ObjectNode done = chunk(model, "", true);
      done.put("prompt_eval_count", promptTokens);
      out.write((JSON.writeValueAsString(done) + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }

  /**
   * The prompt size this server reports ({@code prompt_eval_count}): a rough count of the request's
   * messages, a token per four characters plus four per message, as a model's own tokenizer would
   * report something close to.
   */
  public static int promptTokens(JsonNode chat) {
    int tokens = 0;
    for (JsonNode message : chat.path("messages")) {
      tokens += 4 + (message.path("content").asString().length() + 3) / 4;
    }
    return tokens;
  }

  private static String lastMessage(JsonNode chat, String role) {
    String content = "";
    for (JsonNode message : chat.path("messages")) {
      if (role.equals(message.path("role").asString())) {
        content = message.path("content").asString();
      }
    }
    return content;
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

  private static void sleep(Duration duration) {
    if (duration.isZero()) {
      return;
    }
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
