package dev.memstack.mem0;

import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.support.CircuitBreaker;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * HTTP client of one Mem0 server, in either {@link Mem0Flavor}: the JDK {@link HttpClient}
 * (HTTP/1.1, no redirects followed, so the key never travels elsewhere) and Jackson trees.
 *
 * <p>Every call has a hard time limit that covers the whole exchange, body included; answers are
 * read up to {@link Mem0Settings#maxResponseBytes()} and cut off beyond it. A failure becomes a
 * {@link Mem0Exception} whose message names the operation, status, server error code and request id
 * (from {@code X-Request-ID} or the error body) and is logged once. A {@link CircuitBreaker} (from
 * {@code memory-support}) stops calling a server that keeps failing and lets one probe through
 * after a while; while it refuses, calls throw {@link ProviderUnavailableException} without a
 * request. The api key is sent only in the flavor's auth header and never logged. Thread-safe.
 */
final class Mem0Client implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Mem0Client.class);

  /** Headers that carry a server or gateway request id, in order of preference. */
  static final List<String> REQUEST_ID_HEADERS =
      List.of("x-request-id", "request-id", "x-amzn-requestid", "cf-ray");

  /** The owner id the OSS health check lists (it has no memories; only the answer matters). */
  static final String HEALTH_USER_ID = "memstack-health-check";

  private static final int DETAIL_CHARS = 200;
  private static final int FORGET_ROUNDS = 100;

  /** One chat message of an add. */
  record Message(String role, String content) {
    Message {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(content, "content");
    }
  }

  private final String instanceId;
  private final Mem0Settings settings;
  private final String apiKeyName;
  private final JsonMapper json;
  private final ExecutorService executor;
  private final HttpClient http;
  private final CircuitBreaker breaker;

  /**
   * @param instanceId the provider instance, for thread names and log lines
   * @param settings the validated settings
   * @param apiKeyName the full config key of the api key, for error hints
   * @param nanoTime the breaker's clock
   */
  Mem0Client(String instanceId, Mem0Settings settings, String apiKeyName, LongSupplier nanoTime) {
    this.instanceId = instanceId;
    this.settings = settings;
    this.apiKeyName = apiKeyName;
    this.json = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    AtomicInteger threads = new AtomicInteger();
    ClassLoader pluginLoader = Mem0Client.class.getClassLoader();
    this.executor =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread =
                  new Thread(task, "mem0-" + instanceId + "-http-" + threads.incrementAndGet());
              thread.setDaemon(true);
              thread.setContextClassLoader(pluginLoader);
              return thread;
            });
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(settings.timeout())
            .executor(executor)
            .build();
    this.breaker =
        new CircuitBreaker(settings.breakerFailureThreshold(), settings.breakerOpen(), nanoTime);
  }

  JsonMapper json() {
    return json;
  }

  CircuitBreaker.State breakerState() {
    return breaker.state();
  }

  Duration breakerRetryIn() {
    return breaker.retryIn();
  }

  /**
   * Searches the memories of {@code userId} with {@code agentId}. The ids go where every server
   * generation reads them: on the OSS server top-level (servers before 2026-04) and inside {@code
   * filters} (newer ones), with both count fields {@code top_k} and {@code limit}; on the Platform
   * (v3) only inside {@code filters}, and only {@code user_id}, because the Platform resolves one
   * entity per search (an AND of user and agent matches nothing) and the agent travels in the
   * memory's metadata instead. Hits that name another user or agent are dropped, so a server that
   * ignores a filter cannot leak another owner's memories.
   */
  List<Mem0Memory> search(String userId, String agentId, String query, int topK, Duration timeout) {
    ObjectNode body = json.createObjectNode();
    body.put("query", query);
    String path;
    if (settings.flavor() == Mem0Flavor.OSS) {
      path = "/search";
      body.put("user_id", userId);
      body.put("agent_id", agentId);
      ObjectNode filters = body.putObject("filters");
      filters.put("user_id", userId);
      filters.put("agent_id", agentId);
      body.put("top_k", topK);
      body.put("limit", topK);
    } else {
      path = "/v3/memories/search/";
      body.putObject("filters").put("user_id", userId);
      // The agent is filtered here, not on the server: ask for more so that enough remain.
      body.put("top_k", Math.min(1000, topK * 3));
    }
    if (settings.threshold() != null) {
      body.put("threshold", settings.threshold());
    }
    String operation = "POST " + path;
    List<Mem0Memory> hits =
        call(
            operation,
            "POST",
            path,
            body,
            timeout,
            answer -> Mem0Answers.memories(answer, operation));
    List<Mem0Memory> mine = new ArrayList<>(hits.size());
    int foreign = 0;
    for (Mem0Memory hit : hits) {
      if (belongsTo(hit, userId, agentId)) {
        mine.add(hit);
      } else {
        foreign++;
      }
    }
    if (foreign > 0) {
      log.debug(
          "mem0 provider {}: dropped {} of {} hits that belong to another user or agent",
          instanceId,
          foreign,
          hits.size());
    }
    return mine.size() > topK ? List.copyOf(mine.subList(0, topK)) : mine;
  }

  private static boolean belongsTo(Mem0Memory hit, String userId, String agentId) {
    if (hit.userId() != null && !hit.userId().equals(userId)) {
      return false;
    }
    if (hit.agentId() != null && !hit.agentId().equals(agentId)) {
      return false;
    }
    String taggedAgent = hit.metadata().get(Mem0MemoryProvider.META_AGENT);
    return taggedAgent == null || taggedAgent.equals(agentId);
  }

  /**
   * Adds messages as memories of {@code userId}. OSS: {@code POST /memories} with {@code user_id}
   * and {@code agent_id}. Platform: {@code POST /v3/memories/add/} with {@code user_id} and the
   * agent in metadata (sending {@code agent_id} too would file an agent-scoped copy of the owner's
   * facts that deleting the owner does not reach). A queued ({@code PENDING}) answer is success.
   */
  Mem0AddResult add(
      String userId,
      String agentId,
      List<Message> messages,
      Map<String, String> metadata,
      boolean infer,
      Duration timeout) {
    ObjectNode body = json.createObjectNode();
    ArrayNode list = body.putArray("messages");
    for (Message message : messages) {
      list.addObject().put("role", message.role()).put("content", message.content());
    }
    body.put("user_id", userId);
    String path;
    if (settings.flavor() == Mem0Flavor.OSS) {
      path = "/memories";
      body.put("agent_id", agentId);
    } else {
      path = "/v3/memories/add/";
    }
    ObjectNode meta = body.putObject("metadata");
    metadata.forEach(meta::put);
    body.put("infer", infer);
    String operation = "POST " + path;
    return call(
        operation, "POST", path, body, timeout, answer -> Mem0Answers.addResult(answer, operation));
  }

  /**
   * Deletes every memory of {@code userId} and returns how many there were (best effort; -1 when
   * the server would not say). OSS: {@code DELETE /memories?user_id=} (an admin route on servers
   * with auth); when that is refused with 403, the owner's memories are listed and deleted one by
   * one. Platform: {@code DELETE /v1/memories/?user_id=}, counted first through {@code POST
   * /v3/memories/}.
   */
  long deleteOwner(String userId, Duration timeout) {
    String query = "?user_id=" + encode(userId);
    if (settings.flavor() == Mem0Flavor.PLATFORM) {
      long count = -1;
      try {
        ObjectNode body = json.createObjectNode();
        body.putObject("filters").put("user_id", userId);
        String path = "/v3/memories/?page=1&page_size=1";
        count = call("POST /v3/memories/", "POST", path, body, timeout, Mem0Answers::count);
      } catch (Mem0Exception e) {
        // counting is optional; the delete below decides (an open breaker is not a Mem0Exception)
      }
      exchange("DELETE /v1/memories/", "DELETE", "/v1/memories/" + query, null, timeout);
      return count;
    }
    List<Mem0Memory> listed = null;
    try {
      listed = listOss(userId, timeout);
    } catch (Mem0Exception e) {
      // counting is optional; the delete below decides (an open breaker is not a Mem0Exception)
    }
    try {
      exchange("DELETE /memories", "DELETE", "/memories" + query, null, timeout);
      return listed == null ? -1 : listed.size();
    } catch (Mem0Exception e) {
      if (e.status() != 403) {
        throw e;
      }
      log.info(
          "mem0 provider {}: the key may not erase an owner in one call (admin only); deleting"
              + " the owner's memories one by one",
          instanceId);
    }
    if (listed == null) {
      listed = listOss(userId, timeout);
    }
    long deleted = 0;
    for (int round = 0; round < FORGET_ROUNDS && !listed.isEmpty(); round++) {
      for (Mem0Memory memory : listed) {
        if (memory.id() == null) {
          continue;
        }
        exchange(
            "DELETE /memories/{id}", "DELETE", "/memories/" + encode(memory.id()), null, timeout);
        deleted++;
      }
      listed = listOss(userId, timeout).stream().filter(m -> m.id() != null).toList();
    }
    return deleted;
  }

  private List<Mem0Memory> listOss(String userId, Duration timeout) {
    String path = "/memories?user_id=" + encode(userId) + "&top_k=1000";
    return call(
            "GET /memories",
            "GET",
            path,
            null,
            timeout,
            answer -> Mem0Answers.memories(answer, "GET /memories"))
        .stream()
        .filter(m -> m.userId() == null || m.userId().equals(userId))
        .toList();
  }

  /**
   * A cheap call that proves the server answers and accepts the key: OSS lists the memories of an
   * owner that has none; the Platform has {@code GET /v1/ping/}.
   */
  void ping(Duration timeout) {
    if (settings.flavor() == Mem0Flavor.PLATFORM) {
      exchange("GET /v1/ping/", "GET", "/v1/ping/", null, timeout);
    } else {
      exchange(
          "GET /memories",
          "GET",
          "/memories?user_id=" + HEALTH_USER_ID + "&top_k=1",
          null,
          timeout);
    }
  }

  private JsonNode exchange(
      String operation, String method, String pathAndQuery, JsonNode body, Duration timeout) {
    return call(operation, method, pathAndQuery, body, timeout, answer -> answer);
  }

  /**
   * One exchange: breaker permit, request, status check, JSON parse and {@code reader}; a failure
   * of any of these is logged once and reported to the breaker. An open breaker makes the call fail
   * fast with {@link ProviderUnavailableException}, which the host takes as no verdict.
   */
  private <T> T call(
      String operation,
      String method,
      String pathAndQuery,
      JsonNode body,
      Duration timeout,
      Function<JsonNode, T> reader) {
    if (timeout.toMillis() < 1) {
      throw Mem0Exception.timeout("mem0 " + operation + ": no time left before the deadline");
    }
    if (!breaker.tryAcquire()) {
      throw notCalled(operation);
    }
    Verdict verdict = Verdict.FAILURE;
    try {
      HttpResponse<byte[]> response = send(operation, method, pathAndQuery, body, timeout);
      int status = response.statusCode();
      if (status >= 200 && status < 300) {
        T result = reader.apply(parse(operation, response));
        verdict = Verdict.SUCCESS;
        return result;
      }
      Mem0Exception error = httpError(operation, response);
      // a refusal of this request's content (400/413/422) still shows that the server answers
      verdict = error.kind().isServerFault() ? Verdict.FAILURE : Verdict.SUCCESS;
      throw error;
    } catch (Mem0Exception e) {
      if (Thread.currentThread().isInterrupted()) {
        // abandoned by the caller: says nothing about the server
        verdict = Verdict.NONE;
        log.debug("provider {}: {}", instanceId, e.getMessage());
      } else {
        log.warn("provider {}: {}", instanceId, e.getMessage());
      }
      throw e;
    } finally {
      report(verdict);
    }
  }

  /** How a permitted call ended, as far as the breaker is concerned. */
  private enum Verdict {
    /** The server answered: a 2xx, or a 4xx that only concerns this request. */
    SUCCESS,
    /** A server fault: no connection, a timeout, a 5xx, a broken answer, 401/403, 429, 404... */
    FAILURE,
    /** The call was abandoned by the caller (interrupted). */
    NONE
  }

  private void report(Verdict verdict) {
    switch (verdict) {
      case SUCCESS -> {
        if (breaker.onSuccess()) {
          log.info(
              "mem0 provider {}: the server answers again, circuit breaker closed", instanceId);
        }
      }
      case FAILURE -> {
        if (breaker.onFailure()) {
          log.warn(
              "mem0 provider {}: circuit breaker open, calls fail fast for {} ms, then one probe",
              instanceId,
              settings.breakerOpen().toMillis());
        }
      }
      case NONE -> breaker.onNotCalled();
    }
  }

  private ProviderUnavailableException notCalled(String operation) {
    Duration retryIn = breaker.retryIn();
    String when =
        retryIn.isZero()
            ? "a probe call is running"
            : "next probe in " + Math.max(1, retryIn.toSeconds()) + "s";
    return new ProviderUnavailableException(
        "mem0 "
            + operation
            + ": not called, the circuit breaker is open after repeated failures ("
            + when
            + ")");
  }

  private HttpResponse<byte[]> send(
      String operation, String method, String pathAndQuery, JsonNode body, Duration timeout) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(settings.resolve(pathAndQuery))
            .timeout(timeout)
            .header("Accept", "application/json")
            .header("User-Agent", "memstack-mem0");
    if (settings.apiKey() != null) {
      if (settings.flavor() == Mem0Flavor.PLATFORM) {
        request.header("Authorization", "Token " + settings.apiKey());
      } else {
        request.header("X-API-Key", settings.apiKey());
      }
    }
    if (body != null) {
      byte[] bytes;
      try {
        bytes = json.writeValueAsBytes(body);
      } catch (JacksonException e) {
        throw new IllegalStateException("cannot write a Mem0 request body", e);
      }
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofByteArray(bytes));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    int limit = settings.maxResponseBytes();
    CompletableFuture<HttpResponse<byte[]>> call =
        http.sendAsync(request.build(), info -> new CappedBodySubscriber(info, limit));
    try {
      return call.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw timeout(operation, timeout);
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      throw new Mem0Exception(
          Mem0Exception.Kind.TIMEOUT,
          "mem0 " + operation + ": abandoned (interrupted)",
          0,
          null,
          null,
          new HttpTimeoutException("interrupted"));
    } catch (ExecutionException e) {
      throw transportError(operation, e.getCause(), timeout);
    }
  }

  private Mem0Exception timeout(String operation, Duration timeout) {
    String message =
        "mem0 " + operation + ": no complete answer within " + timeout.toMillis() + " ms";
    return new Mem0Exception(
        Mem0Exception.Kind.TIMEOUT, message, 0, null, null, new HttpTimeoutException(message));
  }

  private Mem0Exception transportError(String operation, Throwable cause, Duration timeout) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof CappedBodySubscriber.TooLargeException tooLarge) {
        HttpResponse.ResponseInfo info = tooLarge.info();
        return new Mem0Exception(
            Mem0Exception.Kind.BAD_RESPONSE,
            "mem0 "
                + operation
                + ": HTTP "
                + info.statusCode()
                + withRequestId(requestId(info.headers(), null))
                + ": "
                + tooLarge.getMessage()
                + " (max-response-bytes), answer dropped",
            info.statusCode(),
            null,
            requestId(info.headers(), null),
            null);
      }
      if (t instanceof HttpConnectTimeoutException) {
        String message =
            "mem0 " + operation + ": could not connect within " + timeout.toMillis() + " ms";
        return new Mem0Exception(Mem0Exception.Kind.TIMEOUT, message, 0, null, null, t);
      }
      if (t instanceof HttpTimeoutException) {
        return timeout(operation, timeout);
      }
      if (t instanceof ConnectException) {
        return new Mem0Exception(
            Mem0Exception.Kind.UNREACHABLE,
            "mem0 " + operation + ": cannot connect to " + settings.baseUrl() + " (refused)",
            0,
            null,
            null,
            t);
      }
    }
    String what =
        cause == null
            ? "unknown error"
            : cause.getClass().getSimpleName()
                + (cause.getMessage() == null ? "" : ": " + clip(cause.getMessage()));
    return new Mem0Exception(
        cause instanceof IOException
            ? Mem0Exception.Kind.UNREACHABLE
            : Mem0Exception.Kind.BAD_RESPONSE,
        "mem0 " + operation + ": connection to " + settings.baseUrl() + " failed: " + what,
        0,
        null,
        null,
        cause);
  }

  private JsonNode parse(String operation, HttpResponse<byte[]> response) {
    byte[] bytes = response.body();
    if (bytes == null || bytes.length == 0) {
      return NullNode.getInstance();
    }
    try {
      return json.readTree(bytes);
    } catch (JacksonException e) {
      String requestId = requestId(response.headers(), null);
      String start = clip(new String(bytes, 0, Math.min(bytes.length, 40), StandardCharsets.UTF_8));
      throw notJson(operation, response.statusCode(), requestId, bytes.length, start);
    }
  }

  private static Mem0Exception notJson(
      String operation, int status, String requestId, int length, String start) {
    return new Mem0Exception(
        Mem0Exception.Kind.BAD_RESPONSE,
        "mem0 "
            + operation
            + ": HTTP "
            + status
            + withRequestId(requestId)
            + ": the answer is not valid JSON ("
            + length
            + " bytes, starting '"
            + start
            + "')",
        status,
        null,
        requestId,
        null);
  }

  private Mem0Exception httpError(String operation, HttpResponse<byte[]> response) {
    int status = response.statusCode();
    JsonNode error = null;
    byte[] bytes = response.body();
    if (bytes != null && bytes.length > 0) {
      try {
        error = json.readTree(bytes);
      } catch (JacksonException e) {
        error = null;
      }
    }
    String code = Mem0Answers.text(error, "code");
    String detail = detail(error);
    String requestId = requestId(response.headers(), Mem0Answers.text(error, "request_id"));
    Mem0Exception.Kind kind;
    String hint;
    if (status == 401 || status == 403) {
      kind = Mem0Exception.Kind.UNAUTHORIZED;
      hint = "check " + apiKeyName;
    } else if (status == 429) {
      kind = Mem0Exception.Kind.RATE_LIMITED;
      hint = "rate limited";
    } else if (status == 400 || status == 413 || status == 422) {
      kind = Mem0Exception.Kind.REJECTED;
      hint = "the server refuses this request";
    } else if (status >= 500) {
      kind = Mem0Exception.Kind.SERVER_ERROR;
      hint = status == 502 ? "the server's upstream (LLM, embedder or store) failed" : null;
    } else {
      kind = Mem0Exception.Kind.WRONG_ENDPOINT;
      hint =
          "check base-url and flavor ("
              + settings.flavor().wireName()
              + "): OSS servers have no /v1 prefix and no trailing slashes, Platform paths do";
    }
    StringBuilder message = new StringBuilder("mem0 ").append(operation).append(": HTTP ");
    message.append(status);
    if (code != null) {
      message.append(' ').append(clip(code));
    }
    message.append(withRequestId(requestId));
    if (detail != null) {
      message.append(": ").append(detail);
    }
    if (hint != null) {
      message.append(" (").append(hint).append(')');
    }
    return new Mem0Exception(kind, message.toString(), status, code, requestId, null);
  }

  private static String detail(JsonNode error) {
    if (error == null || !error.isObject()) {
      return null;
    }
    for (String field : List.of("detail", "message", "error", "details")) {
      JsonNode value = error.get(field);
      if (value == null || value.isNull()) {
        continue;
      }
      return clip(value.isString() ? value.asString() : value.toString());
    }
    return null;
  }

  static String requestId(HttpHeaders headers, String fallback) {
    for (String name : REQUEST_ID_HEADERS) {
      var value = headers.firstValue(name);
      if (value.isPresent() && !value.get().isBlank()) {
        return clip(value.get());
      }
    }
    return fallback == null || fallback.isBlank() ? null : clip(fallback);
  }

  private static String withRequestId(String requestId) {
    return requestId == null ? "" : " (request id " + requestId + ")";
  }

  /** Shortens text for a message and replaces control characters. */
  static String clip(String value) {
    StringBuilder out = new StringBuilder();
    int limit = Math.min(value.length(), DETAIL_CHARS);
    for (int i = 0; i < limit; i++) {
      char c = value.charAt(i);
      out.append(Character.isISOControl(c) ? ' ' : c);
    }
    if (value.length() > limit) {
      out.append("...");
    }
    return out.toString();
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
