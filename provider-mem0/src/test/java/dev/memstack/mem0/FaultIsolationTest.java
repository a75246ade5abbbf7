package dev.memstack.mem0;

import static dev.memstack.mem0.TestSupport.AGENT;
import static dev.memstack.mem0.TestSupport.USER_1;
import static dev.memstack.mem0.TestSupport.config;
import static dev.memstack.mem0.TestSupport.provider;
import static dev.memstack.mem0.TestSupport.request;
import static dev.memstack.mem0.TestSupport.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.support.CircuitBreaker;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way a Mem0 server can fail leaves the provider call within its deadline, with an exception
 * that names what went wrong (the host reports it as {@code error} or {@code timeout}).
 */
@DisplayName("Fault isolation")
class FaultIsolationTest {

  /** Slack for scheduling on a busy two-core machine. */
  private static final long MARGIN_MS = 700;

  private static final int FIFTY_MB = 50 * 1024 * 1024;

  @TempDir Path dataDir;
  private FakeMem0Server server;
  private Mem0MemoryProvider provider;

  @AfterEach
  void stop() {
    if (provider != null) {
      provider.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private Mem0MemoryProvider ossProvider(String... more) {
    server = server == null ? FakeMem0Server.start(FakeMem0Server.Generation.CURRENT_OSS) : server;
    provider = provider(config(server, more), dataDir);
    return provider;
  }

  /** Runs a prefetch and returns its failure, checking it ended within {@code limitMs}. */
  private static Mem0Exception prefetchFails(
      Mem0MemoryProvider provider, RecallRequest request, long limitMs) {
    long start = System.nanoTime();
    Throwable thrown = null;
    try {
      provider.prefetch(request);
    } catch (Throwable t) {
      thrown = t;
    }
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(thrown).as("prefetch must fail").isInstanceOf(Mem0Exception.class);
    assertThat(tookMs).as("prefetch took %d ms", tookMs).isLessThan(limitMs);
    return (Mem0Exception) thrown;
  }

  @Nested
  @DisplayName("prefetch")
  class Prefetch {

    @Test
    @DisplayName("a server that is down fails fast as unreachable")
    void aServerThatIsDownFailsFast() throws IOException {
      provider = provider(config("http://127.0.0.1:" + SilentServer.closedPort()), dataDir);

      Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 1000);

      assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.UNREACHABLE);
      assertThat(e).hasMessageContaining("POST /search").hasMessageContaining("cannot connect");
    }

    @Test
    @DisplayName("a server that accepts but never answers times out at timeout-ms")
    void aServerThatNeverAnswersTimesOut() throws IOException {
      try (SilentServer silent = new SilentServer()) {
        provider = provider(config(silent.baseUrl(), "timeout-ms", "400"), dataDir);

        Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 400 + MARGIN_MS);

        assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.TIMEOUT);
        assertThat(e.getCause()).isInstanceOf(HttpTimeoutException.class);
        assertThat(silent.connections()).isEqualTo(1);
      }
    }

    @Test
    @DisplayName("a server that answers after the timeout is not waited for")
    void aLateAnswerIsNotWaitedFor() {
      ossProvider("timeout-ms", "400");
      server.override(
          "POST",
          "/search",
          (exchange, request) -> {
            Thread.sleep(2000);
            FakeMem0Server.sendRaw(exchange, 200, "{\"results\":[]}".getBytes());
          });

      Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 400 + MARGIN_MS);

      assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.TIMEOUT);
      assertThat(e).hasMessageContaining("no complete answer within 400 ms");
    }

    @Test
    @DisplayName("the request's deadline wins over a longer timeout-ms")
    void theDeadlineWinsOverALongerTimeout() throws IOException {
      try (SilentServer silent = new SilentServer()) {
        provider = provider(config(silent.baseUrl(), "timeout-ms", "10000"), dataDir);

        prefetchFails(
            provider, request(AGENT, USER_1, "tea", 5, Duration.ofMillis(300)), 300 + MARGIN_MS);
      }
    }

    @Test
    @DisplayName("a deadline that has already passed fails at once without a call")
    void aPassedDeadlineFailsWithoutACall() {
      ossProvider();

      Mem0Exception e =
          prefetchFails(
              provider,
              new RecallRequest(AGENT, USER_1, null, "tea", 5, Instant.now().minusSeconds(1)),
              200);

      assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.TIMEOUT);
      assertThat(server.requests()).isEmpty();
    }

    @Test
    @DisplayName("401 names the key setting")
    void unauthorizedNamesTheKeySetting() {
      server = FakeMem0Server.start(FakeMem0Server.Generation.CURRENT_OSS).requireApiKey("k-1");
      ossProvider();

      Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 2000);

      assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.UNAUTHORIZED);
      assertThat(e)
          .hasMessageContaining("HTTP 401")
          .hasMessageContaining("Invalid API key.")
          .hasMessageContaining("memstack.providers.mem0.config.api-key");
    }

    @Test
    @DisplayName("502 reports the server's error code and request id")
    void badGatewayReportsCodeAndRequestId() {
      ossProvider();
      server.override(
          "POST",
          "/search",
          (exchange, request) -> {
            exchange.getResponseHeaders().set("X-Request-ID", "9f1c2d3e");
            FakeMem0Server.sendRaw(
                exchange,
                502,
                ("{\"detail\":\"Provider timed out. Retry shortly.\","
                        + "\"code\":\"provider_timeout\",\"request_id\":\"9f1c2d3e\"}")
                    .getBytes());
          });

      Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 2000);

      assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.SERVER_ERROR);
      assertThat(e.status()).isEqualTo(502);
      assertThat(e.errorCode()).isEqualTo("provider_timeout");
      assertThat(e.requestId()).isEqualTo("9f1c2d3e");
      assertThat(e)
          .hasMessage(
              "mem0 POST /search: HTTP 502 provider_timeout (request id 9f1c2d3e): Provider"
                  + " timed out. Retry shortly. (the server's upstream (LLM, embedder or store)"
                  + " failed)");
    }

    @Test
    @DisplayName("a request id only in the error body is reported too")
    void aRequestIdInTheBodyIsReported() {
      ossProvider();
      server.override(
          "POST",
          "/search",
          (exchange, request) -> {
            exchange.getResponseHeaders().remove("X-Request-ID");
            FakeMem0Server.sendRaw(
                exchange,
                502,
                ("{\"detail\":\"The vector store is unreachable.\","
                        + "\"code\":\"vector_store_unavailable\",\"request_id\":\"ab12cd34\"}")
                    .getBytes());
          });

      Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 2000);

      assertThat(e.requestId()).isEqualTo("ab12cd34");
      assertThat(e).hasMessageContaining("vector_store_unavailable (request id ab12cd34)");
    }

    @Test
    @DisplayName("an answer that is not JSON is a bad response")
    void invalidJsonIsABadResponse() {
      ossProvider();
      server.override(
          "POST",
          "/search",
          (exchange, request) ->
              FakeMem0Server.sendRaw(
                  exchange, 200, "<html><body>Welcome to nginx</body></html>".getBytes()));

      Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 2000);

      assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.BAD_RESPONSE);
      assertThat(e).hasMessageContaining("not valid JSON").hasMessageContaining("<html>");
    }

    @Test
    @DisplayName("JSON of the wrong shape is a bad response")
    void jsonOfTheWrongShapeIsABadResponse() {
      ossProvider();
      server.override(
          "POST",
          "/search",
          (exchange, request) ->
              FakeMem0Server.sendRaw(exchange, 200, "{\"hits\":{\"total\":3}}".getBytes()));

      Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 2000);

      assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.BAD_RESPONSE);
      assertThat(e).hasMessageContaining("'results' or 'memories'");
    }

    @Test
    @DisplayName("a 50 MB answer with Content-Length is refused without reading it")
    void aHugeDeclaredAnswerIsRefused() throws Exception {
      ossProvider();
      AtomicLong written = new AtomicLong();
      CountDownLatch done = new CountDownLatch(1);
      server.override(
          "POST", "/search", (exchange, request) -> stream(exchange, FIFTY_MB, written, done));

      Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 2000);

      assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.BAD_RESPONSE);
      assertThat(e).hasMessageContaining("max-response-bytes").hasMessageContaining("52428800");
      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(written.get()).as("bytes the server got rid of").isLessThan(FIFTY_MB);
    }

    @Test
    @DisplayName("a 50 MB streamed answer is cut off at max-response-bytes")
    void aHugeStreamedAnswerIsCutOff() throws Exception {
      ossProvider("max-response-bytes", "65536");
      AtomicLong written = new AtomicLong();
      CountDownLatch done = new CountDownLatch(1);
      server.override("POST", "/search", (exchange, request) -> stream(exchange, 0, written, done));

      Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 2000);

      assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.BAD_RESPONSE);
      assertThat(e).hasMessageContaining("larger than the limit of 65536 bytes");
      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(written.get()).as("bytes the server got rid of").isLessThan(FIFTY_MB);
    }

    @Test
    @DisplayName("a caller's interrupt ends the call at once and does not count against the server")
    void anInterruptEndsTheCall() throws Exception {
      try (SilentServer silent = new SilentServer()) {
        provider = provider(config(silent.baseUrl(), "timeout-ms", "10000"), dataDir);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread caller =
            new Thread(
                () -> {
                  try {
                    provider.prefetch(request(USER_1, "tea", 5));
                  } catch (Throwable t) {
                    thrown.set(t);
                  }
                });
        caller.start();
        Thread.sleep(300);
        long start = System.nanoTime();
        caller.interrupt();
        caller.join(5000);

        assertThat(caller.isAlive()).isFalse();
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(500);
        assertThat(thrown.get())
            .isInstanceOf(Mem0Exception.class)
            .hasMessageContaining("abandoned");
        assertThat(provider.breakerState()).isEqualTo(CircuitBreaker.State.CLOSED);
      }
    }

    @Test
    @DisplayName("a wrong URL (404) reports the flavor's path rules")
    void aWrongUrlReportsThePathRules() {
      server = FakeMem0Server.start(FakeMem0Server.Generation.CURRENT_OSS);
      provider = provider(config(server.baseUrl() + "/v1/"), dataDir);

      Mem0Exception e = prefetchFails(provider, request(USER_1, "tea", 5), 2000);

      assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.WRONG_ENDPOINT);
      assertThat(e)
          .hasMessageContaining("POST /search: HTTP 404")
          .hasMessageContaining("OSS servers have no /v1 prefix");
      assertThat(server.last("POST", "/v1/search").path()).isEqualTo("/v1/search");
    }
  }

  /** Answers with {@code total} bytes (0 = chunked, 50 MB) of JSON-ish filler. */
  private static void stream(
      com.sun.net.httpserver.HttpExchange exchange,
      long declared,
      AtomicLong written,
      CountDownLatch done)
      throws IOException {
    try {
      exchange.sendResponseHeaders(200, declared);
      byte[] chunk = new byte[64 * 1024];
      Arrays.fill(chunk, (byte) ' ');
      chunk[0] = '[';
      try (OutputStream out = exchange.getResponseBody()) {
        for (long sent = 0; sent < FIFTY_MB; sent += chunk.length) {
          out.write(chunk);
          written.addAndGet(chunk.length);
        }
      } catch (IOException expected) {
        // the client hung up, as it should
      }
    } finally {
      done.countDown();
    }
  }

  /** Runs a prefetch that must fail fast without a call, and returns its exception. */
  private static ProviderUnavailableException prefetchFailsFast(Mem0MemoryProvider provider) {
    long start = System.nanoTime();
    Throwable thrown = null;
    try {
      provider.prefetch(request(USER_1, "tea", 5));
    } catch (Throwable t) {
      thrown = t;
    }
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(thrown)
        .as("an open breaker fails fast as not called, which the host takes as no verdict")
        .isInstanceOf(ProviderUnavailableException.class)
        .hasMessageContaining("not called, the circuit breaker is open");
    assertThat(tookMs).as("prefetch took %d ms", tookMs).isLessThan(100);
    return (ProviderUnavailableException) thrown;
  }

  private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status, String body)
      throws IOException {
    FakeMem0Server.sendRaw(exchange, status, body.getBytes(StandardCharsets.UTF_8));
  }

  @Nested
  @DisplayName("circuit breaker")
  class Breaker {

    @Test
    @DisplayName("opens after repeated failures, stops calling, and closes after a good probe")
    void opensStopsCallingAndClosesAfterAGoodProbe() throws Exception {
      ossProvider("breaker-failure-threshold", "3", "breaker-open-ms", "400");
      server.override(
          "POST",
          "/search",
          (exchange, request) ->
              answer(exchange, 502, "{\"detail\":\"down\",\"code\":\"provider_unavailable\"}"));

      for (int i = 0; i < 3; i++) {
        assertThat(prefetchFails(provider, request(USER_1, "tea", 5), 2000).kind())
            .isEqualTo(Mem0Exception.Kind.SERVER_ERROR);
      }
      assertThat(provider.breakerState()).isEqualTo(CircuitBreaker.State.OPEN);
      assertThat(prefetchFailsFast(provider)).hasMessageContaining("next probe in");
      assertThat(server.requests("POST", "/search")).hasSize(3);
      ProviderHealth health = provider.health();
      assertThat(health.status()).isEqualTo(ProviderHealth.Status.DOWN);
      assertThat(health.detail()).contains("circuit breaker open");
      assertThat(server.requests()).as("health does not call an open breaker's server").hasSize(3);

      Thread.sleep(450);
      assertThat(provider.breakerState())
          .as("the wait is over: the next call is the probe")
          .isEqualTo(CircuitBreaker.State.HALF_OPEN);
      server.clearOverrides();
      server.seed("user:1", "helper", "tea with lemon", Map.of());

      assertThat(provider.prefetch(request(USER_1, "tea", 5)).items()).hasSize(1);
      assertThat(provider.breakerState()).isEqualTo(CircuitBreaker.State.CLOSED);
      assertThat(provider.health().status()).isEqualTo(ProviderHealth.Status.UP);
    }

    @Test
    @DisplayName("a failed probe opens it again")
    void aFailedProbeOpensItAgain() throws Exception {
      ossProvider("breaker-failure-threshold", "1", "breaker-open-ms", "300");
      server.override(
          "POST",
          "/search",
          (exchange, request) -> FakeMem0Server.sendRaw(exchange, 503, new byte[0]));

      prefetchFails(provider, request(USER_1, "tea", 5), 2000);
      Thread.sleep(350);
      assertThat(prefetchFails(provider, request(USER_1, "tea", 5), 2000).kind())
          .as("the probe's own failure counts: it was called")
          .isEqualTo(Mem0Exception.Kind.SERVER_ERROR);
      prefetchFailsFast(provider);
      assertThat(server.requests("POST", "/search")).hasSize(2);
    }

    @Test
    @DisplayName("timeouts open it")
    void timeoutsOpenIt() throws IOException {
      try (SilentServer silent = new SilentServer()) {
        provider =
            provider(
                config(
                    silent.baseUrl(),
                    "timeout-ms",
                    "300",
                    "breaker-failure-threshold",
                    "2",
                    "breaker-open-ms",
                    "60000"),
                dataDir);

        for (int i = 0; i < 2; i++) {
          assertThat(prefetchFails(provider, request(USER_1, "tea", 5), 300 + MARGIN_MS).kind())
              .isEqualTo(Mem0Exception.Kind.TIMEOUT);
        }

        prefetchFailsFast(provider);
        assertThat(silent.connections()).as("no third connection").isEqualTo(2);
      }
    }

    @Test
    @DisplayName("a wrong key (401) counts against the server: every call would fail the same way")
    void aWrongKeyOpensIt() {
      ossProvider("breaker-failure-threshold", "2", "breaker-open-ms", "60000");
      server.override(
          "POST", "/search", (exchange, request) -> answer(exchange, 401, "{\"detail\":\"no\"}"));

      for (int i = 0; i < 2; i++) {
        assertThat(prefetchFails(provider, request(USER_1, "tea", 5), 2000).kind())
            .isEqualTo(Mem0Exception.Kind.UNAUTHORIZED);
      }

      prefetchFailsFast(provider);
    }

    @Test
    @DisplayName("a 4xx about one request (400, 413, 422) is not a server fault and opens nothing")
    void aRefusedRequestDoesNotOpenIt() {
      ossProvider("breaker-failure-threshold", "2", "breaker-open-ms", "60000");
      AtomicLong calls = new AtomicLong();
      int[] statuses = {400, 413, 422, 400, 422};
      server.override(
          "POST",
          "/search",
          (exchange, request) ->
              answer(
                  exchange,
                  statuses[(int) (calls.getAndIncrement() % statuses.length)],
                  "{\"detail\":\"query too long\"}"));

      for (int i = 0; i < statuses.length; i++) {
        assertThat(prefetchFails(provider, request(USER_1, "tea", 5), 2000).kind())
            .isEqualTo(Mem0Exception.Kind.REJECTED);
      }

      assertThat(provider.breakerState()).isEqualTo(CircuitBreaker.State.CLOSED);
      assertThat(server.requests("POST", "/search")).hasSize(statuses.length);
    }

    @Test
    @DisplayName("a refused request between server faults breaks the run: the server answered")
    void aRefusedRequestBreaksTheRunOfFaults() {
      ossProvider("breaker-failure-threshold", "2", "breaker-open-ms", "60000");
      AtomicLong calls = new AtomicLong();
      server.override(
          "POST",
          "/search",
          (exchange, request) ->
              answer(exchange, calls.incrementAndGet() == 2 ? 422 : 502, "{\"detail\":\"x\"}"));

      prefetchFails(provider, request(USER_1, "tea", 5), 2000);
      prefetchFails(provider, request(USER_1, "tea", 5), 2000);
      prefetchFails(provider, request(USER_1, "tea", 5), 2000);

      assertThat(provider.breakerState()).isEqualTo(CircuitBreaker.State.CLOSED);
      prefetchFails(provider, request(USER_1, "tea", 5), 2000);
      assertThat(provider.breakerState()).isEqualTo(CircuitBreaker.State.OPEN);
    }

    @Test
    @DisplayName("syncTurn and tools fail fast too: not called, and a tool says unavailable")
    void syncAndToolsFailFast() {
      ossProvider(
          "breaker-failure-threshold", "1", "breaker-open-ms", "60000", "sync-retries", "0");
      server.override(
          "POST", "/search", (exchange, request) -> answer(exchange, 500, "{\"detail\":\"x\"}"));
      prefetchFails(provider, request(USER_1, "tea", 5), 2000);

      assertThatThrownBy(() -> provider.syncTurn(turn("turn-b1", USER_1, "I like tea", "Noted.")))
          .isInstanceOf(ProviderUnavailableException.class)
          .hasMessageContaining("POST /memories: not called");
      assertThatThrownBy(
              () ->
                  provider.callTool(
                      new ToolCall(AGENT, USER_1, "mem0_search", "{\"query\":\"tea\"}")))
          .isInstanceOfSatisfying(
              ToolException.class,
              e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.UNAVAILABLE))
          .hasCauseInstanceOf(ProviderUnavailableException.class);
      assertThatThrownBy(() -> provider.forget(USER_1))
          .isInstanceOf(ProviderUnavailableException.class);
      assertThat(server.requests())
          .as("nothing but the first search reached the server")
          .hasSize(1);
      assertThat(provider.health().detail()).contains("circuit breaker open");
    }
  }

  @Nested
  @DisplayName("syncTurn")
  class Sync {

    @Test
    @DisplayName("retries a 502 in the call, then throws so the host keeps the turn")
    void retriesThenThrows() {
      ossProvider("sync-retries", "2");
      server.override(
          "POST",
          "/memories",
          (exchange, request) ->
              FakeMem0Server.sendRaw(
                  exchange,
                  502,
                  "{\"detail\":\"Provider rate limit hit.\",\"code\":\"provider_rate_limited\"}"
                      .getBytes()));
      var turn = turn("turn-f1", USER_1, "I play chess", "Nice.");

      assertThatThrownBy(() -> provider.syncTurn(turn))
          .isInstanceOf(Mem0Exception.class)
          .hasMessageContaining("HTTP 502 provider_rate_limited");
      assertThat(server.requests("POST", "/memories")).hasSize(3);
      assertThat(provider.health().status()).isEqualTo(ProviderHealth.Status.DEGRADED);
      assertThat(provider.health().detail()).contains("the last push failed");

      server.clearOverrides();
      provider.syncTurn(turn);

      assertThat(server.requests("POST", "/memories")).hasSize(4);
      assertThat(server.memoriesOf("user:1")).extracting(m -> m.text).contains("I play chess");
      assertThat(provider.health().status()).isEqualTo(ProviderHealth.Status.UP);
    }

    @Test
    @DisplayName("a timed-out push is not resent in the call (it may have been stored)")
    void aTimedOutPushIsNotResentInTheCall() {
      ossProvider("sync-timeout-ms", "300", "sync-retries", "3");
      server.override(
          "POST",
          "/memories",
          (exchange, request) -> {
            Thread.sleep(1500);
            FakeMem0Server.sendRaw(exchange, 200, "{\"results\":[]}".getBytes());
          });

      long start = System.nanoTime();
      assertThatThrownBy(() -> provider.syncTurn(turn("turn-f2", USER_1, "a", "b")))
          .isInstanceOfSatisfying(
              Mem0Exception.class, e -> assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.TIMEOUT));
      assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(300 + MARGIN_MS);
      assertThat(server.requests("POST", "/memories")).hasSize(1);
    }

    @Test
    @DisplayName(
        "a server that is down makes syncTurn throw, and the turn goes out once it is back")
    void aServerThatIsDownMakesSyncThrow() throws IOException {
      int port = SilentServer.closedPort();
      provider = provider(config("http://127.0.0.1:" + port, "sync-retries", "1"), dataDir);
      var turn = turn("turn-f3", USER_1, "I like kites", "Fun!");

      assertThatThrownBy(() -> provider.syncTurn(turn))
          .isInstanceOfSatisfying(
              Mem0Exception.class,
              e -> assertThat(e.kind()).isEqualTo(Mem0Exception.Kind.UNREACHABLE));

      server = FakeMem0Server.start(FakeMem0Server.Generation.CURRENT_OSS);
      provider.close();
      provider = provider(config(server), dataDir);
      provider.syncTurn(turn);
      assertThat(server.memoriesOf("user:1")).extracting(m -> m.text).contains("I like kites");
    }

    @Test
    @DisplayName("a turn the server refuses for good is kept on disk, reported and not resent")
    void aRefusedTurnIsKeptReportedAndNotResent() throws IOException {
      ossProvider();
      server.override(
          "POST",
          "/memories",
          (exchange, request) ->
              FakeMem0Server.sendRaw(
                  exchange, 422, "{\"detail\":[{\"msg\":\"field required\"}]}".getBytes()));
      var turn = turn("turn-f4", USER_1, "Remember the gate code 1234", "Done.");

      provider.syncTurn(turn);
      provider.syncTurn(turn);

      assertThat(server.requests("POST", "/memories")).hasSize(1);
      Path rejected = dataDir.resolve(RejectedTurnLog.FILE_NAME);
      String line = Files.readString(rejected, StandardCharsets.UTF_8);
      assertThat(line)
          .contains("\"turn_id\":\"turn-f4\"")
          .contains("\"owner\":\"user:1\"")
          .contains("Remember the gate code 1234")
          .contains("\"status\":422");
      server.clearOverrides();
      assertThat(provider.health().status()).isEqualTo(ProviderHealth.Status.DEGRADED);
      assertThat(provider.health().detail()).contains("1 turns refused");

      provider.forget(USER_1);
      assertThat(Files.readString(rejected, StandardCharsets.UTF_8)).doesNotContain("turn-f4");
    }

    @Test
    @DisplayName("a 429 is retried with backoff and then succeeds")
    void rateLimitIsRetried() {
      ossProvider("sync-retries", "2", "sync-retry-backoff-ms", "50");
      AtomicLong calls = new AtomicLong();
      server.override(
          "POST",
          "/memories",
          (exchange, request) -> {
            if (calls.incrementAndGet() == 1) {
              FakeMem0Server.sendRaw(exchange, 429, "{\"detail\":\"slow down\"}".getBytes());
            } else {
              FakeMem0Server.sendRaw(
                  exchange,
                  200,
                  "{\"results\":[{\"id\":\"m1\",\"memory\":\"Likes tea\",\"event\":\"ADD\"}]}"
                      .getBytes());
            }
          });

      provider.syncTurn(turn("turn-f5", USER_1, "I like tea", "Noted."));

      assertThat(calls.get()).isEqualTo(2);
      assertThat(provider.health().status()).isEqualTo(ProviderHealth.Status.UP);
    }
  }
}
