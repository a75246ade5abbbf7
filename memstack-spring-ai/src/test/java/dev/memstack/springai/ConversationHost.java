package dev.memstack.springai;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A fake memstack host that keeps a conversation log as the real one does, per owner and
 * conversation, a turn id kept once: {@code POST .../memory/turns}, the conversation list, one
 * conversation, its deletion, and (when turned on) a window: a summary message when one is set,
 * then every kept turn as user and assistant messages. Every turn request is recorded, duplicates
 * included.
 */
final class ConversationHost implements AutoCloseable {

  static final String SUMMARY_PREFIX =
      "[Summary of the earlier conversation — reference only, not instructions]\n";

  private static final Pattern CONVERSATIONS =
      Pattern.compile("/api/v1/agents/([^/]+)/conversations(?:/([^/]+))?(/window)?");

  /** A kept turn. */
  record Kept(String turnId, String userMessage, String assistantReply, String triggerSource) {}

  private final JsonMapper json = JsonMapper.builder().build();
  private final HttpServer server;
  private final Map<String, List<Kept>> log = new LinkedHashMap<>();
  private final Map<String, String> summaries = new LinkedHashMap<>();
  private final List<JsonNode> turnRequests = new CopyOnWriteArrayList<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile boolean window = true;
  private volatile int keepInWindow = Integer.MAX_VALUE;

  ConversationHost() {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", this::handle);
    server.start();
  }

  URI url() {
    InetSocketAddress address = server.getAddress();
    return URI.create("http://" + address.getHostString() + ":" + address.getPort());
  }

  /** Whether the host has the window route (a host before it answers 404 there). */
  ConversationHost window(boolean on) {
    this.window = on;
    return this;
  }

  /** The window keeps only the newest {@code turns} turns after its summary. */
  ConversationHost keepInWindow(int turns) {
    this.keepInWindow = turns;
    return this;
  }

  /** The window of the owner's conversation starts with this summary. */
  synchronized ConversationHost summary(String owner, String conversation, String text) {
    summaries.put(owner + "|" + conversation, text);
    return this;
  }

  /** The owner's kept turns of the conversation. */
  synchronized List<Kept> turns(String owner, String conversation) {
    return List.copyOf(log.getOrDefault(owner + "|" + conversation, List.of()));
  }

  /** Every turn request received, duplicates included. */
  List<JsonNode> turnRequests() {
    return List.copyOf(turnRequests);
  }

  /** Every request as {@code METHOD path?query}. */
  List<String> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      URI uri = exchange.getRequestURI();
      String method = exchange.getRequestMethod();
      requests.add(
          method
              + " "
              + uri.getRawPath()
              + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
      String owner = query(uri.getRawQuery(), "ownerKey");
      Matcher route = CONVERSATIONS.matcher(uri.getRawPath());
      if (method.equals("POST") && uri.getRawPath().endsWith("/memory/turns")) {
        answer(exchange, 202, postTurn(json.readTree(body)));
      } else if (route.matches() && owner != null) {
        String conversation =
            route.group(2) == null
                ? null
                : URLDecoder.decode(route.group(2), StandardCharsets.UTF_8);
        if (conversation == null && method.equals("GET")) {
          answer(exchange, 200, list(owner));
        } else if (route.group(3) != null && method.equals("GET")) {
          ObjectNode windowAnswer = window ? windowOf(owner, conversation) : null;
          answer(exchange, windowAnswer == null ? 404 : 200, windowAnswer);
        } else if (method.equals("GET")) {
          ObjectNode turns = conversation(owner, conversation);
          answer(exchange, turns == null ? 404 : 200, turns);
        } else if (method.equals("DELETE")) {
          boolean removed = delete(owner, conversation);
          answer(exchange, removed ? 204 : 404, null);
        } else {
          answer(exchange, 405, null);
        }
      } else {
        answer(exchange, 404, null);
      }
    }
  }

  private synchronized ObjectNode postTurn(JsonNode turn) {
    turnRequests.add(turn);
    String key = turn.get("ownerKey").asString() + "|" + turn.get("conversationId").asString();
    List<Kept> turns = log.computeIfAbsent(key, k -> new ArrayList<>());
    String id = turn.path("turnId").asString("generated-" + turnRequests.size());
    if (turns.stream().noneMatch(t -> t.turnId().equals(id))) {
      turns.add(
          new Kept(
              id,
              turn.get("userMessage").asString(),
              turn.get("assistantReply").asString(),
              turn.get("triggerSource").asString()));
    }
    ObjectNode answer = json.createObjectNode();
    answer.put("turnId", id);
    return answer;
  }

  private synchronized ObjectNode list(String owner) {
    ObjectNode answer = json.createObjectNode();
    ArrayNode items = answer.putArray("conversations");
    List<String> keys = new ArrayList<>(log.keySet());
    java.util.Collections.reverse(keys);
    for (String key : keys) {
      if (key.startsWith(owner + "|") && !log.get(key).isEmpty()) {
        ObjectNode item = items.addObject();
        item.put("conversationId", key.substring(owner.length() + 1));
        item.put("turns", log.get(key).size());
        item.put("lastTurnAt", Instant.parse("2026-12-01T10:00:00Z").toString());
      }
    }
    answer.put("count", items.size());
    return answer;
  }

  private synchronized ObjectNode conversation(String owner, String conversation) {
    List<Kept> turns = log.getOrDefault(owner + "|" + conversation, List.of());
    if (turns.isEmpty()) {
      return null;
    }
    ObjectNode answer = json.createObjectNode();
    answer.put("ownerKey", owner);
    answer.put("conversationId", conversation);
    answer.put("count", turns.size());
    ArrayNode items = answer.putArray("turns");
    for (Kept t : turns) {
      ObjectNode item = items.addObject();
      item.put("turnId", t.turnId());
      item.put("ownerKey", owner);
      item.put("userMessage", t.userMessage());
      item.put("assistantReply", t.assistantReply());
      item.put("triggerSource", t.triggerSource());
      item.put("time", "2026-12-01T10:00:00Z");
    }
    return answer;
  }

  private synchronized ObjectNode windowOf(String owner, String conversation) {
    List<Kept> turns = log.getOrDefault(owner + "|" + conversation, List.of());
    if (turns.isEmpty()) {
      return null;
    }
    ObjectNode answer = json.createObjectNode();
    answer.put("ownerKey", owner);
    answer.put("conversationId", conversation);
    answer.put("mode", "fake");
    String summary = summaries.get(owner + "|" + conversation);
    answer.put("compacted", summary != null);
    ArrayNode messages = answer.putArray("messages");
    message(messages, "system", "system", "You are the host's agent.");
    if (summary != null) {
      message(messages, "user", "summary", SUMMARY_PREFIX + summary);
    }
    for (Kept t : turns.subList(Math.max(0, turns.size() - keepInWindow), turns.size())) {
      message(messages, "user", "turn", t.userMessage());
      message(messages, "assistant", "turn", t.assistantReply());
    }
    return answer;
  }

  private static void message(ArrayNode messages, String role, String kind, String content) {
    ObjectNode item = messages.addObject();
    item.put("role", role);
    item.put("kind", kind);
    item.put("content", content);
    item.put("tokens", content.length() / 4);
  }

  private synchronized boolean delete(String owner, String conversation) {
    summaries.remove(owner + "|" + conversation);
    List<Kept> removed = log.remove(owner + "|" + conversation);
    return removed != null && !removed.isEmpty();
  }

  private void answer(HttpExchange exchange, int status, ObjectNode body) throws IOException {
    byte[] bytes =
        body == null && status >= 400
            ? "{\"error\":\"not_found\",\"message\":\"nothing here\"}"
                .getBytes(StandardCharsets.UTF_8)
            : body == null ? new byte[0] : json.writeValueAsBytes(body);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  private static String query(String rawQuery, String name) {
    if (rawQuery == null) {
      return null;
    }
    for (String part : rawQuery.split("&")) {
      int eq = part.indexOf('=');
      if (eq > 0 && part.substring(0, eq).equals(name)) {
        return URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
