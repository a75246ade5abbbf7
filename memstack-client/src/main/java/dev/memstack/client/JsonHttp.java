package dev.memstack.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The HTTP exchange behind {@link MemstackClient}: JSON in and out, the bearer token, the request
 * timeout, and the mapping of error answers and I/O failures to {@link MemstackException}s.
 */
final class JsonHttp {

  /** How much of a body that is not a host error goes into an exception message. */
  private static final int BODY_EXCERPT = 200;

  private final HttpClient http;
  private final String token;
  private final Duration timeout;
  private final JsonMapper json;

  JsonHttp(HttpClient http, String token, Duration timeout) {
    this.http = http;
    this.token = token;
    this.timeout = timeout;
    this.json =
        JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .changeDefaultPropertyInclusion(
                inclusion -> inclusion.withValueInclusion(JsonInclude.Include.NON_NULL))
            .build();
  }

  JsonMapper json() {
    return json;
  }

  /**
   * Sends {@code body} (or nothing, when {@code null}) and reads the 2xx answer as {@code type}
   * ({@code Void.class}: the body is not read, for a 204).
   */
  <T> T exchange(String method, URI uri, Object body, Class<T> type) {
    String call = method + " " + uri.getRawPath();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json");
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)));
    }
    HttpResponse<String> response = send(call, request.build());
    if (response.statusCode() >= 400) {
      throw apiError(call, response);
    }
    if (type == Void.class) {
      return null;
    }
    try {
      return json.readValue(response.body(), type);
    } catch (JacksonException e) {
      throw new MemstackConnectionException(
          call
              + " answered "
              + response.statusCode()
              + " with a body that is not the expected JSON",
          false,
          e);
    }
  }

  private HttpResponse<String> send(String call, HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (HttpConnectTimeoutException e) {
      throw new MemstackConnectionException(call + ": connect timed out", true, e);
    } catch (HttpTimeoutException e) {
      throw new MemstackConnectionException(
          call + ": no answer within " + timeout.toMillis() + " ms", true, e);
    } catch (ConnectException e) {
      throw new MemstackConnectionException(call + ": cannot connect to the host", false, e);
    } catch (IOException e) {
      throw new MemstackConnectionException(call + ": " + e, false, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MemstackConnectionException(call + ": interrupted", false, e);
    }
  }

  private MemstackApiException apiError(String call, HttpResponse<String> response) {
    int status = response.statusCode();
    Duration retryAfter =
        response.headers().firstValue("Retry-After").flatMap(JsonHttp::seconds).orElse(null);
    String body = response.body() == null ? "" : response.body();
    JsonNode error = null;
    try {
      error = json.readTree(body);
    } catch (JacksonException e) {
      // not JSON: reported by its excerpt below
    }
    if (error != null && error.isObject() && error.path("error").isString()) {
      return new MemstackApiException(
          call,
          status,
          error.get("error").stringValue(),
          error.path("field").isString() ? error.get("field").stringValue() : null,
          error.path("message").isString() ? error.get("message").stringValue() : "",
          retryAfter);
    }
    String excerpt = body.length() > BODY_EXCERPT ? body.substring(0, BODY_EXCERPT) + "..." : body;
    return new MemstackApiException(call, status, null, null, excerpt.strip(), retryAfter);
  }

  private static java.util.Optional<Duration> seconds(String header) {
    try {
      return java.util.Optional.of(Duration.ofSeconds(Long.parseLong(header.trim())));
    } catch (NumberFormatException e) {
      return java.util.Optional.empty();
    }
  }
}
