package dev.memstack.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An Ollama chat endpoint on loopback ({@code POST /api/chat}, one JSON answer) that answers every
 * completion with a JSON object saying nothing should change, so that the memory jobs run (they
 * need a chat model) without writing anything of their own. Counts the calls.
 */
final class FakeChatServer implements AutoCloseable {

  private static final String ANSWER =
      "{\"model\":\"fake\",\"created_at\":\"2026-12-01T00:00:00Z\",\"message\":{\"role\":"
          + "\"assistant\",\"content\":\"{\\\"should_update\\\": false, \\\"reason\\\":"
          + " \\\"nothing new\\\", \\\"facts\\\": []}\"},\"done\":true,\"done_reason\":\"stop\"}";

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final AtomicInteger calls = new AtomicInteger();

  FakeChatServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/api/chat", this::chat);
    server.setExecutor(threads);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  int calls() {
    return calls.get();
  }

  private void chat(HttpExchange exchange) throws IOException {
    try (exchange) {
      exchange.getRequestBody().readAllBytes();
      calls.incrementAndGet();
      byte[] body = ANSWER.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
