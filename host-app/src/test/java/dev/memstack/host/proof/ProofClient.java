package dev.memstack.host.proof;

import dev.memstack.host.security.TestTokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.StreamSupport;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * HTTP access to a {@link ProofHost} with the admin token (or another one); answers keep status,
 * body and time.
 */
final class ProofClient {

  static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final int port;
  private final String token;

  ProofClient(int port) {
    this(port, TestTokens.ADMIN);
  }

  /** A client that sends {@code token} instead of the admin token. */
  ProofClient(int port, String token) {
    this.port = port;
    this.token = token;
  }

  /** One answer; {@code json} is {@code null} when the body is empty or not JSON. */
  record Answer(int status, String contentType, String body, JsonNode json, Duration took) {

    List<JsonNode> recall() {
      return StreamSupport.stream(json.get("recall").spliterator(), false).toList();
    }

    String statusOf(String provider) {
      return StreamSupport.stream(json.get("providers").spliterator(), false)
          .filter(report -> provider.equals(report.get("id").asString()))
          .findFirst()
          .map(report -> report.get("status").asString())
          .orElse("absent");
    }

    @Override
    public String toString() {
      String shown = body.length() > 600 ? body.substring(0, 600) + "..." : body;
      return status + " in " + took.toMillis() + " ms: " + shown;
    }
  }

  HttpRequest.Builder request(String rawPath) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + rawPath))
        .header("Authorization", TestTokens.bearer(token))
        .timeout(Duration.ofSeconds(60));
  }

  Answer send(HttpRequest request) {
    long begin = System.nanoTime();
    try {
      HttpResponse<String> response =
          http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      Duration took = Duration.ofNanos(System.nanoTime() - begin);
      JsonNode json = null;
      try {
        json = response.body().isEmpty() ? null : JSON.readTree(response.body());
      } catch (RuntimeException notJson) {
        // left null: the caller asserts on it
      }
      return new Answer(
          response.statusCode(),
          response.headers().firstValue("Content-Type").orElse(""),
          response.body(),
          json,
          took);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  Answer get(String path) {
    return send(request(path).GET().build());
  }

  Answer post(String path, String body) {
    return postBytes(path, body.getBytes(StandardCharsets.UTF_8));
  }

  Answer postBytes(String path, byte[] body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build());
  }

  Answer context(String agent, String owner, String query, int limit) {
    return context(agent, owner, query, limit, false);
  }

  Answer context(String agent, String owner, String query, int limit, boolean explain) {
    ObjectNode body = JSON.createObjectNode();
    body.put("ownerKey", owner);
    body.put("query", query);
    body.put("limit", limit);
    body.put("explain", explain);
    return post("/api/v1/agents/" + agent + "/memory/context", body.toString());
  }

  Answer turn(String agent, String owner, String turnId, String userMessage, String reply) {
    ObjectNode body = JSON.createObjectNode();
    body.put("ownerKey", owner);
    body.put("conversationId", "conv-" + owner.replaceAll("[^A-Za-z0-9]", "_"));
    body.put("turnId", turnId);
    body.put("userMessage", userMessage);
    body.put("assistantReply", reply);
    body.put("triggerSource", "api");
    return post("/api/v1/agents/" + agent + "/memory/turns", body.toString());
  }

  Answer tool(String agent, String provider, String tool, ObjectNode args) {
    return post("/api/v1/agents/" + agent + "/tools/" + provider + "/" + tool, args.toString());
  }

  /** The total of {@code pending} over every provider of the outbox. */
  int pending() {
    Answer outbox = get("/api/v1/outbox");
    int pending = 0;
    for (JsonNode provider : outbox.json().get("providers")) {
      pending += provider.get("pending").asInt();
    }
    return pending;
  }

  JsonNode outboxOf(String provider) {
    for (JsonNode entry : get("/api/v1/outbox").json().get("providers")) {
      if (provider.equals(entry.get("id").asString())) {
        return entry;
      }
    }
    return JSON.createObjectNode().put("pending", 0).put("delivered", 0);
  }
}
