package dev.memstack.mem0;

import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.support.CircuitBreaker;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
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
import tools.jackson.databind.node.NullNode;

/**
 * The exchanges of a {@link Mem0Client} with its server: the JDK {@link HttpClient} (HTTP/1.1, no
 * redirects followed, so the key never travels elsewhere), the hard time limit of each exchange
 * (body included), answers read up to {@link Mem0Settings#maxResponseBytes()}, the auth header of
 * the flavor, the {@link CircuitBreaker} (from {@code memory-support}) and the {@link
 * Mem0Exception} a failure becomes, naming the operation, status, server error code and request id.
 * While the breaker refuses, calls throw {@link ProviderUnavailableException} without a request.
 * Thread-safe.
 */
final class Mem0Exchange implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Mem0Exchange.class);

  /** Headers that carry a server or gateway request id, in order of preference. */
  static final List<String> REQUEST_ID_HEADERS =
      List.of("x-request-id", "request-id", "x-amzn-requestid", "cf-ray");

  private static final int DETAIL_CHARS = 200;

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
  Mem0Exchange(String instanceId, Mem0Settings settings, String apiKeyName, LongSupplier nanoTime) {
    this.instanceId = instanceId;
    this.settings = settings;
    this.apiKeyName = apiKeyName;
    this.json = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    AtomicInteger threads = new AtomicInteger();
    ClassLoader pluginLoader = Mem0Exchange.class.getClassLoader();
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

  /** The settings it was built with. */
  Mem0Settings settings() {
    return settings;
  }

  CircuitBreaker.State breakerState() {
    return breaker.state();
  }

  Duration breakerRetryIn() {
    return breaker.retryIn();
  }

  JsonNode exchange(
      String operation, String method, String pathAndQuery, JsonNode body, Duration timeout) {
    return call(operation, method, pathAndQuery, body, timeout, answer -> answer);
  }

  /**
   * One exchange: breaker permit, request, status check, JSON parse and {@code reader}; a failure
   * of any of these is logged once and reported to the breaker. An open breaker makes the call fail
   * fast with {@link ProviderUnavailableException}, which the host takes as no verdict.
   */
  <T> T call(
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

  /** The provider instance this exchange serves, for thread names and log lines. */
  String instanceId() {
    return instanceId;
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
