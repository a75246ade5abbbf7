package dev.memstack.host.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.security.TestTokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.stream.StreamSupport;
import org.awaitility.Awaitility;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The host tests' one way to talk to a host over HTTP: every request goes through {@link #send},
 * which adds the client's bearer token (the admin token unless {@link #as} says otherwise), so a
 * change in how the API authenticates is made here once. The port is read at each request, so a
 * client follows a restarted host and can be made before Spring injects the port.
 */
public final class HostClient {

  public static final JsonMapper JSON = JsonMapper.builder().build();

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private final IntSupplier port;
  private final String token;

  /** A client with the admin token. */
  public HostClient(IntSupplier port) {
    this(port, TestTokens.ADMIN);
  }

  private HostClient(IntSupplier port, String token) {
    this.port = port;
    this.token = token;
  }

  /** The same host with {@code token} as the bearer token, or with none when it is null. */
  public HostClient as(String token) {
    return new HostClient(port, token);
  }

  /**
   * One answer: status, body, the body as JSON ({@code null} when empty or not JSON, such as a page
   * or a Prometheus scrape), the headers, the wall time and the address asked.
   */
  public record Answer(
      int status, String body, JsonNode json, HttpHeaders headers, Duration took, URI uri) {

    /** Asserts the answer's status (the answer is the description) and returns the answer. */
    public Answer expect(int expected) {
      assertThat(status).as(toString()).isEqualTo(expected);
      return this;
    }

    /** The {@code error} of an {@code ApiError} body, or null. */
    public String error() {
      return json == null || json.get("error") == null ? null : json.get("error").asString();
    }

    public String contentType() {
      return headers.firstValue("Content-Type").orElse("");
    }

    /** The recall items of a context call. */
    public List<JsonNode> recall() {
      return StreamSupport.stream(json.get("recall").spliterator(), false).toList();
    }

    /** The recall items of {@code provider}. */
    public List<JsonNode> recallOf(String provider) {
      return recall().stream()
          .filter(item -> provider.equals(item.get("provider").asString()))
          .toList();
    }

    /** The status a context call reports for {@code provider}, {@code absent} without a report. */
    public String statusOf(String provider) {
      return StreamSupport.stream(json.get("providers").spliterator(), false)
          .filter(report -> provider.equals(report.get("id").asString()))
          .findFirst()
          .map(report -> report.get("status").asString())
          .orElse("absent");
    }

    /** The report of {@code provider} in a context call. */
    public JsonNode report(String provider) {
      return StreamSupport.stream(json.get("providers").spliterator(), false)
          .filter(report -> provider.equals(report.get("id").asString()))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no report of " + provider + " in " + body));
    }

    @Override
    public String toString() {
      String shown = body.length() > 600 ? body.substring(0, 600) + "..." : body;
      return status + " in " + took.toMillis() + " ms: " + shown;
    }
  }

  /** A request to {@code rawPath} of the host with the client's token. */
  public HttpRequest.Builder request(String rawPath) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.getAsInt() + rawPath))
            .timeout(Duration.ofSeconds(60));
    if (token != null) {
      request.header("Authorization", TestTokens.bearer(token));
    }
    return request;
  }

  public Answer send(HttpRequest.Builder request) {
    return send(request.build());
  }

  public Answer send(HttpRequest request) {
    long begin = System.nanoTime();
    try {
      HttpResponse<String> response =
          HTTP.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      Duration took = Duration.ofNanos(System.nanoTime() - begin);
      return new Answer(
          response.statusCode(),
          response.body(),
          json(response),
          response.headers(),
          took,
          response.uri());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode json(HttpResponse<String> response) {
    String body = response.body();
    if (body == null || body.isEmpty()) {
      return null;
    }
    try {
      return JSON.readTree(body);
    } catch (RuntimeException notJson) {
      return null;
    }
  }

  public Answer get(String path) {
    return send(request(path).GET());
  }

  /** A GET with {@code token} as the bearer token, or with no token when it is {@code null}. */
  public Answer get(String path, String token) {
    return as(token).get(path);
  }

  public Answer delete(String path) {
    return send(request(path).DELETE());
  }

  public Answer post(String path, String body) {
    return send(json(request(path)).POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  public Answer post(String path, JsonNode body) {
    return post(path, JSON.writeValueAsString(body));
  }

  public Answer postBytes(String path, byte[] body) {
    return send(json(request(path)).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  public Answer put(String path, String body) {
    return send(json(request(path)).PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  /** A PUT of a workspace file: {@code {"content": content}}. */
  public Answer putFile(String path, String content) {
    return put(path, JSON.writeValueAsString(Map.of("content", content)));
  }

  /** A JSON-RPC message posted to the MCP endpoint as a streamable HTTP client sends it. */
  public Answer mcp(String message) {
    return send(
        json(request("/mcp"))
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(message)));
  }

  private static HttpRequest.Builder json(HttpRequest.Builder request) {
    return request.header("Content-Type", "application/json");
  }

  /** {@code POST /api/v1/agents/{agent}/memory/context} in conversation {@code c-recall}. */
  public Answer context(String agent, String owner, String query) {
    return context(agent, owner, query, false);
  }

  /** A context call; with {@code explain} the items keep their providers' metadata. */
  public Answer context(String agent, String owner, String query, boolean explain) {
    ObjectNode body = contextBody(owner, query, explain);
    body.put("conversationId", "c-recall");
    return post("/api/v1/agents/" + agent + "/memory/context", body);
  }

  /** A context call outside any conversation with at most {@code limit} items. */
  public Answer context(String agent, String owner, String query, int limit) {
    return context(agent, owner, query, limit, false);
  }

  /** A context call outside any conversation with at most {@code limit} items. */
  public Answer context(String agent, String owner, String query, int limit, boolean explain) {
    ObjectNode body = contextBody(owner, query, explain);
    body.put("limit", limit);
    return post("/api/v1/agents/" + agent + "/memory/context", body);
  }

  private static ObjectNode contextBody(String owner, String query, boolean explain) {
    ObjectNode body = JSON.createObjectNode();
    body.put("ownerKey", owner);
    body.put("query", query);
    body.put("explain", explain);
    return body;
  }

  /**
   * {@code POST /api/v1/agents/{agent}/memory/turns} from the API, with a turn id, in the owner's
   * conversation {@code conv-<owner with _ for other than letters and digits>}.
   */
  public Answer turn(String agent, String owner, String turnId, String userMessage, String reply) {
    ObjectNode body = JSON.createObjectNode();
    body.put("ownerKey", owner);
    body.put("conversationId", "conv-" + owner.replaceAll("[^A-Za-z0-9]", "_"));
    body.put("turnId", turnId);
    body.put("userMessage", userMessage);
    body.put("assistantReply", reply);
    body.put("triggerSource", "api");
    return post("/api/v1/agents/" + agent + "/memory/turns", body);
  }

  /** {@code POST /api/v1/agents/{agent}/tools/{provider}/{tool}}. */
  public Answer tool(String agent, String provider, String tool, ObjectNode args) {
    return post("/api/v1/agents/" + agent + "/tools/" + provider + "/" + tool, args);
  }

  /** The backlog of {@code provider} in {@code GET /api/v1/outbox}. */
  public JsonNode outboxOf(String provider) {
    Answer outbox = get("/api/v1/outbox");
    return StreamSupport.stream(outbox.json().get("providers").spliterator(), false)
        .filter(backlog -> provider.equals(backlog.get("id").asString()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no backlog of " + provider + " in " + outbox));
  }

  /**
   * Polls the outbox backlog of {@code provider} until {@code check} passes on it ({@code what}
   * names the wait in the failure), for at most {@code within}.
   */
  public void awaitBacklog(
      String what, String provider, Duration within, Consumer<JsonNode> check) {
    Awaitility.await(what)
        .atMost(within)
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(() -> check.accept(outboxOf(provider)));
  }

  /** The total of {@code pending} over every provider of the outbox. */
  public int pending() {
    int pending = 0;
    for (JsonNode provider : get("/api/v1/outbox").json().get("providers")) {
      pending += provider.get("pending").asInt();
    }
    return pending;
  }

  /** Whether {@code GET /actuator/health} answers UP (the embedding model is warm by then). */
  public boolean up() {
    try {
      Answer health = get("/actuator/health");
      return health.status() == 200 && "UP".equals(health.json().get("status").asString());
    } catch (IllegalStateException | UncheckedIOException e) {
      return false;
    }
  }
}
