package dev.memstack.mem0;

import dev.memstack.support.CircuitBreaker;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Client of one Mem0 server, in either {@link Mem0Flavor}: search, add, list and the erasure of an
 * owner, with the ids and fields each server generation reads (see {@code MEM0-API.md}); the
 * exchanges themselves (HTTP, time limits, auth, circuit breaker, errors) are {@link
 * Mem0Exchange}'s. Hits that name another owner are dropped. Thread-safe.
 */
final class Mem0Client implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Mem0Client.class);

  /** The owner id the OSS health check lists (it has no memories; only the answer matters). */
  static final String HEALTH_USER_ID = "memstack-health-check";

  private static final int FORGET_ROUNDS = 100;

  /** One chat message of an add. */
  record Message(String role, String content) {
    Message {
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(content, "content");
    }
  }

  private final Mem0Exchange server;
  private final Mem0Settings settings;
  private final JsonMapper json;

  /**
   * @param server the exchange with the server, with the instance and settings; closed with this
   *     client
   */
  Mem0Client(Mem0Exchange server) {
    this.server = server;
    this.settings = server.settings();
    this.json = server.json();
  }

  JsonMapper json() {
    return json;
  }

  /** The provider instance, for thread names and log lines. */
  String instanceId() {
    return server.instanceId();
  }

  /** The validated settings. */
  Mem0Settings settings() {
    return settings;
  }

  CircuitBreaker.State breakerState() {
    return server.breakerState();
  }

  Duration breakerRetryIn() {
    return server.breakerRetryIn();
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
        server.call(
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
          instanceId(),
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
    return server.call(
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
        count = server.call("POST /v3/memories/", "POST", path, body, timeout, Mem0Answers::count);
      } catch (Mem0Exception e) {
        // counting is optional; the delete below decides (an open breaker is not a Mem0Exception)
      }
      server.exchange("DELETE /v1/memories/", "DELETE", "/v1/memories/" + query, null, timeout);
      return count;
    }
    List<Mem0Memory> listed = null;
    try {
      listed = listOss(userId, timeout);
    } catch (Mem0Exception e) {
      // counting is optional; the delete below decides (an open breaker is not a Mem0Exception)
    }
    try {
      server.exchange("DELETE /memories", "DELETE", "/memories" + query, null, timeout);
      return listed == null ? -1 : listed.size();
    } catch (Mem0Exception e) {
      if (e.status() != 403) {
        throw e;
      }
      log.info(
          "mem0 provider {}: the key may not erase an owner in one call (admin only); deleting"
              + " the owner's memories one by one",
          instanceId());
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
        server.exchange(
            "DELETE /memories/{id}", "DELETE", "/memories/" + encode(memory.id()), null, timeout);
        deleted++;
      }
      listed = listOss(userId, timeout).stream().filter(m -> m.id() != null).toList();
    }
    return deleted;
  }

  private List<Mem0Memory> listOss(String userId, Duration timeout) {
    String path = "/memories?user_id=" + encode(userId) + "&top_k=1000";
    return server
        .call(
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
      server.exchange("GET /v1/ping/", "GET", "/v1/ping/", null, timeout);
    } else {
      server.exchange(
          "GET /memories",
          "GET",
          "/memories?user_id=" + HEALTH_USER_ID + "&top_k=1",
          null,
          timeout);
    }
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public void close() {
    server.close();
  }
}
