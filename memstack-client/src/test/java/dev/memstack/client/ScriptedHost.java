package dev.memstack.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A fake memstack host on a JDK {@link HttpServer}: each route answers what the test scripted
 * (status, body, headers, a delay), every request is recorded, and an unscripted route answers 404
 * with the host's JSON error. For tests of clients of the REST API.
 */
public final class ScriptedHost implements AutoCloseable {

  /** One request as the host received it. */
  public record Received(
      String method, String path, String query, Map<String, List<String>> headers, String body) {

    /** The first value of a header, or {@code null}. */
    public String header(String name) {
      for (Map.Entry<String, List<String>> entry : headers.entrySet()) {
        if (entry.getKey().equalsIgnoreCase(name) && !entry.getValue().isEmpty()) {
          return entry.getValue().get(0);
        }
      }
      return null;
    }
  }

  /** What a route answers. */
  public record Reply(int status, String body, Duration delay, Map<String, String> headers) {

    /** A JSON answer. */
    public static Reply json(int status, String body) {
      return new Reply(status, body, Duration.ZERO, Map.of("Content-Type", "application/json"));
    }

    /** The same answer after {@code wait}. */
    public Reply after(Duration wait) {
      return new Reply(status, body, wait, headers);
    }

    /** The same answer with one more header. */
    public Reply header(String name, String value) {
      Map<String, String> more = new java.util.LinkedHashMap<>(headers);
      more.put(name, value);
      return new Reply(status, body, delay, more);
    }
  }

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final Map<String, Reply> routes = new ConcurrentHashMap<>();
  private final List<Received> received = new ArrayList<>();

  private ScriptedHost() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A started host on a free loopback port. */
  public static ScriptedHost start() {
    return new ScriptedHost();
  }

  /** The base URL, {@code http://127.0.0.1:<port>}. */
  public URI url() {
    InetSocketAddress address = server.getAddress();
    return URI.create("http://" + address.getHostString() + ":" + address.getPort());
  }

  /** Scripts {@code method path} (the raw path, no query) to answer {@code reply} from now on. */
  public ScriptedHost on(String method, String path, Reply reply) {
    routes.put(method + " " + path, reply);
    return this;
  }

  /** Every request so far, in arrival order. */
  public List<Received> received() {
    synchronized (received) {
      return List.copyOf(received);
    }
  }

  /** The requests so far to {@code method path}. */
  public List<Received> received(String method, String path) {
    return received().stream()
        .filter(r -> r.method().equals(method) && r.path().equals(path))
        .toList();
  }

  /**
   * Waits until {@code count} requests to {@code method path} arrived and returns them; fails after
   * {@code timeout}.
   */
  public List<Received> await(String method, String path, int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (received) {
      while (true) {
        List<Received> matching = received(method, path);
        if (matching.size() >= count) {
          return matching;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(
              "expected "
                  + count
                  + " "
                  + method
                  + " "
                  + path
                  + " within "
                  + timeout
                  + ", got "
                  + matching.size()
                  + "; all requests: "
                  + received);
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(received, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted", e);
        }
      }
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      URI uri = exchange.getRequestURI();
      Received request =
          new Received(
              exchange.getRequestMethod(),
              uri.getRawPath(),
              uri.getRawQuery(),
              Map.copyOf(exchange.getRequestHeaders()),
              body);
      synchronized (received) {
        received.add(request);
        received.notifyAll();
      }
      Reply reply =
          routes.getOrDefault(
              request.method() + " " + request.path(),
              Reply.json(404, "{\"error\":\"not_found\",\"message\":\"no such route\"}"));
      if (!reply.delay().isZero()) {
        try {
          Thread.sleep(reply.delay().toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      reply.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
      byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    } catch (IOException e) {
      // the client went away (a timeout test): nothing to answer
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
