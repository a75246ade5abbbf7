package dev.memstack.host.e2e;

import dev.memstack.host.security.TestTokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.stream.StreamSupport;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The acceptance tests' only way to talk to a host: every request goes through {@link #send}, which
 * adds the admin bearer token, so a change in how the API authenticates is made here once.
 */
final class HostClient {

  static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final IntSupplier port;

  HostClient(IntSupplier port) {
    this.port = port;
  }

  /**
   * An answer: status, body, the body as JSON ({@code null} when empty or not JSON, such as a page
   * or a Prometheus scrape) and the wall time.
   */
  record Answer(int status, String body, JsonNode json, Duration took) {

    /** The recall items of {@code provider}. */
    List<JsonNode> recallOf(String provider) {
      return StreamSupport.stream(json.get("recall").spliterator(), false)
          .filter(item -> provider.equals(item.get("provider").asString()))
          .toList();
    }

    /** The status a context call reports for {@code provider}. */
    String statusOf(String provider) {
      return report(provider).get("status").asString();
    }

    /** The report of {@code provider} in a context call. */
    JsonNode report(String provider) {
      return StreamSupport.stream(json.get("providers").spliterator(), false)
          .filter(report -> provider.equals(report.get("id").asString()))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no report of " + provider + " in " + body));
    }

    @Override
    public String toString() {
      return status + " in " + took.toMillis() + " ms: " + body;
    }
  }

  Answer get(String path) {
    return send(request(path).GET());
  }

  /** A GET with {@code token} as the bearer token, or with no token when it is {@code null}. */
  Answer get(String path, String token) {
    return send(request(path).GET(), token);
  }

  Answer post(String path, JsonNode body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
  }

  Answer delete(String path) {
    return send(request(path).DELETE());
  }

  /** {@code POST /api/v1/agents/{agent}/memory/context}. */
  Answer context(String agent, String owner, String query) {
    return context(agent, owner, query, false);
  }

  /** A context call; with {@code explain} the items keep their providers' metadata. */
  Answer context(String agent, String owner, String query, boolean explain) {
    ObjectNode body = JSON.createObjectNode();
    body.put("ownerKey", owner);
    body.put("conversationId", "c-recall");
    body.put("query", query);
    body.put("explain", explain);
    return post("/api/v1/agents/" + agent + "/memory/context", body);
  }

  /** {@code POST /api/v1/agents/{agent}/memory/turns} from the web, with a turn id. */
  Answer turn(String agent, String owner, String turnId, String userMessage, String reply) {
    ObjectNode body = JSON.createObjectNode();
    body.put("ownerKey", owner);
    body.put("conversationId", "c1");
    body.put("turnId", turnId);
    body.put("userMessage", userMessage);
    body.put("assistantReply", reply);
    body.put("triggerSource", "web");
    return post("/api/v1/agents/" + agent + "/memory/turns", body);
  }

  /** The backlog of {@code provider} in {@code GET /api/v1/outbox}. */
  JsonNode outboxOf(String provider) {
    Answer outbox = get("/api/v1/outbox");
    return StreamSupport.stream(outbox.json().get("providers").spliterator(), false)
        .filter(backlog -> provider.equals(backlog.get("id").asString()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no backlog of " + provider + " in " + outbox));
  }

  /** Whether {@code GET /actuator/health} answers UP (the embedding model is warm by then). */
  boolean up() {
    try {
      Answer health = get("/actuator/health");
      return health.status() == 200 && "UP".equals(health.json().get("status").asString());
    } catch (IllegalStateException e) {
      return false;
    }
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.getAsInt() + path))
        .timeout(Duration.ofSeconds(30));
  }

  private Answer send(HttpRequest.Builder request) {
    return send(request, TestTokens.ADMIN);
  }

  private Answer send(HttpRequest.Builder request, String token) {
    if (token != null) {
      request.header("Authorization", TestTokens.bearer(token));
    }
    long start = System.nanoTime();
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      String body = response.body();
      boolean isJson =
          response.headers().firstValue("Content-Type").orElse("application/json").contains("json");
      JsonNode json = body == null || body.isEmpty() || !isJson ? null : JSON.readTree(body);
      return new Answer(response.statusCode(), body, json, took);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
