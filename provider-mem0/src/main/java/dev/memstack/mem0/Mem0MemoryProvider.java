package dev.memstack.mem0;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolSpec;
import dev.memstack.spi.Turn;
import dev.memstack.support.CircuitBreaker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A memory layer backed by an external Mem0 server (self-hosted OSS server or the Platform).
 *
 * <p>{@link #prefetch} searches Mem0 for the request's owner ({@code user_id} = owner key) and
 * agent, within {@code min(timeout-ms, time left before the deadline)}, and returns the hits as
 * PERSONAL items tagged {@code [Mem0 Recall]}; without an owner it returns nothing and calls
 * nothing. {@link #syncTurn} pushes the user message and the reply with the owner key, the agent
 * and the conversation and turn ids (metadata) synchronously, on the host's delivery thread: the
 * host's per-provider outbox is the queue (bounded, in order, retried with backoff), this class is
 * the single sender. A push that fails transiently is retried {@code sync-retries} times here and
 * then thrown, so the host keeps the turn and retries it later; a turn the server refuses for good
 * (400/413/422) is written to {@code rejected-turns.jsonl} and logged instead of blocking the turns
 * behind it. Turn ids already sent are remembered in {@code sent-turns.log}, so at-least-once
 * delivery gives one memory. The system prompt block is always empty. Failures never leak the api
 * key; after {@code breaker-failure-threshold} server faults in a row calls fail fast with {@link
 * ProviderUnavailableException} (no verdict for the host's own breaker) until a probe succeeds. A
 * refusal of one request's content (400/413/422) is not a server fault and opens nothing.
 */
final class Mem0MemoryProvider implements MemoryProvider {

  private static final Logger log = LoggerFactory.getLogger(Mem0MemoryProvider.class);

  /** Metadata key of the agent on memories this provider writes. */
  static final String META_AGENT = "memstack_agent";

  static final String META_CONVERSATION = "conversation_id";
  static final String META_TURN = "turn_id";

  private final String id;
  private final Mem0Settings settings;
  private final Mem0Client client;
  private final SentTurnLog sent;
  private final RejectedTurnLog rejected;
  private final Clock clock;
  private final Mem0Tools tools;
  private final Object sendLock = new Object();
  private volatile boolean closed;
  private volatile String lastSyncFailure;

  /** The provider's id and settings are the client's. */
  Mem0MemoryProvider(Mem0Client client, SentTurnLog sent, RejectedTurnLog rejected, Clock clock) {
    this.client = client;
    this.id = client.instanceId();
    this.settings = client.settings();
    this.sent = sent;
    this.rejected = rejected;
    this.clock = clock;
    this.tools = new Mem0Tools(client);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public Set<Capability> capabilities() {
    Set<Capability> capabilities = EnumSet.of(Capability.FORGET, Capability.PERSONAL_MEMORY);
    // Only verbatim storage (infer=false, synchronous on both flavors) keeps a turn's own words.
    if (settings.searchEnabled() && settings.syncEnabled() && !settings.infer()) {
      capabilities.add(Capability.RECALLS_TURNS);
    }
    return capabilities;
  }

  @Override
  public String systemPromptBlock(AgentId agent) {
    ensureOpen();
    return "";
  }

  @Override
  public Recall prefetch(RecallRequest request) {
    ensureOpen();
    OwnerKey owner = request.owner();
    String query = request.query().strip();
    if (!settings.searchEnabled() || owner == null || query.isEmpty()) {
      return Recall.empty();
    }
    // Deadlines are wall-clock instants set by the host, so they are compared with real time.
    Duration left = Duration.between(Instant.now(), request.deadline());
    Duration timeout = left.compareTo(settings.timeout()) < 0 ? left : settings.timeout();
    int limit = Math.min(request.limit(), settings.maxResults());
    List<Mem0Memory> hits =
        client.search(owner.value(), request.agent().value(), query, limit, timeout);
    List<RecallItem> items = new ArrayList<>(hits.size());
    for (Mem0Memory hit : hits) {
      items.add(toItem(hit, owner));
    }
    items.sort(Comparator.comparingDouble(RecallItem::score).reversed());
    return Recall.of(items.size() > limit ? items.subList(0, limit) : items);
  }

  private RecallItem toItem(Mem0Memory hit, OwnerKey owner) {
    Map<String, String> metadata = new LinkedHashMap<>();
    if (hit.id() != null) {
      metadata.put("memory_id", hit.id());
    }
    copy(hit.metadata(), META_CONVERSATION, metadata);
    copy(hit.metadata(), META_TURN, metadata);
    if (hit.updatedAt() != null) {
      metadata.put("updated_at", hit.updatedAt().toString());
    }
    double score = hit.score() == null ? 0.0 : hit.score();
    if (score < 0 || score > 1) {
      // the SPI's scores are 0..1; some servers answer distances or unbounded scores
      metadata.put("server_score", Double.toString(score));
      score = Math.max(0, Math.min(1, score));
    }
    String text =
        settings.recallLabel() == null
            ? hit.text()
            : "[" + settings.recallLabel() + "] " + hit.text();
    return new RecallItem(text, score, Scope.PERSONAL, owner, id, hit.createdAt(), metadata);
  }

  private static void copy(Map<String, String> from, String key, Map<String, String> to) {
    String value = from.get(key);
    if (value != null) {
      to.put(key, value);
    }
  }

  @Override
  public void syncTurn(Turn turn) {
    ensureOpen();
    if (!settings.syncEnabled()) {
      return;
    }
    synchronized (sendLock) {
      if (sent.contains(turn)) {
        log.debug("mem0 provider {}: turn {} was already sent", id, turn.turnId());
        return;
      }
      List<Mem0Client.Message> messages = new ArrayList<>(2);
      if (!turn.userMessage().isBlank()) {
        messages.add(new Mem0Client.Message("user", turn.userMessage()));
      }
      if (!turn.assistantReply().isBlank()) {
        messages.add(new Mem0Client.Message("assistant", turn.assistantReply()));
      }
      Map<String, String> metadata = new LinkedHashMap<>();
      metadata.put("source", "memstack");
      metadata.put(META_AGENT, turn.agent().value());
      metadata.put(META_CONVERSATION, turn.conversationId());
      metadata.put(META_TURN, turn.turnId());
      metadata.put("trigger_source", turn.triggerSource().wireName());
      metadata.put("turn_time", turn.time().toString());
      push(turn, messages, metadata);
    }
  }

  private void push(Turn turn, List<Mem0Client.Message> messages, Map<String, String> metadata) {
    for (int attempt = 0; ; attempt++) {
      try {
        Mem0AddResult result =
            client.add(
                turn.owner().value(),
                turn.agent().value(),
                messages,
                metadata,
                settings.infer(),
                settings.syncTimeout());
        sent.add(turn);
        lastSyncFailure = null;
        log.debug(
            "mem0 provider {}: turn {} accepted ({} events, {} pending)",
            id,
            turn.turnId(),
            result.events().size(),
            result.pending());
        return;
      } catch (ProviderUnavailableException e) {
        lastSyncFailure = clock.instant() + " " + e.getMessage();
        throw e;
      } catch (Mem0Exception e) {
        if (e.kind() == Mem0Exception.Kind.REJECTED) {
          rejected.record(turn, e, clock.instant());
          sent.add(turn);
          log.error(
              "mem0 provider {}: the server refused turn {} for good; kept in {} ({})",
              id,
              turn.turnId(),
              rejected.file(),
              e.getMessage());
          return;
        }
        if (!retriesInCall(e) || attempt >= settings.syncRetries()) {
          lastSyncFailure = clock.instant() + " " + e.getMessage();
          throw e;
        }
        if (!sleep(settings.syncRetryBackoff().multipliedBy(1L << Math.min(attempt, 16)))) {
          lastSyncFailure = clock.instant() + " " + e.getMessage();
          throw e;
        }
      }
    }
  }

  /**
   * Failures after which the server surely stored nothing, so resending at once is safe. A timeout
   * or a broken 2xx answer is not among them (the add may have been stored): the host retries those
   * later.
   */
  private static boolean retriesInCall(Mem0Exception e) {
    return switch (e.kind()) {
      case UNREACHABLE, RATE_LIMITED, SERVER_ERROR -> true;
      default -> false;
    };
  }

  private static boolean sleep(Duration pause) {
    try {
      Thread.sleep(pause.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public long forget(OwnerKey owner) {
    ensureOpen();
    synchronized (sendLock) {
      long local = rejected.removeOwner(owner);
      sent.removeOwner(owner);
      long remote = client.deleteOwner(owner.value(), settings.syncTimeout());
      log.info(
          "mem0 provider {}: erased an owner ({} memories on the server, {} refused turns kept"
              + " locally)",
          id,
          remote < 0 ? "unknown number of" : Long.toString(remote),
          local);
      return Math.max(0, remote) + local;
    }
  }

  @Override
  public List<ToolSpec> tools() {
    return tools.specs();
  }

  @Override
  public String callTool(ToolCall call) {
    ensureOpen();
    return tools.call(call);
  }

  @Override
  public ProviderHealth health() {
    if (closed) {
      return ProviderHealth.down("closed");
    }
    String where = settings.flavor().wireName() + " server at " + settings.baseUrl();
    if (client.breakerState() == CircuitBreaker.State.OPEN) {
      return ProviderHealth.down(
          where
              + ": circuit breaker open after repeated failures, next probe in "
              + Math.max(1, client.breakerRetryIn().toSeconds())
              + "s");
    }
    try {
      // once the breaker's wait is over this check may itself be the probe call
      client.ping(settings.timeout());
    } catch (Mem0Exception | ProviderUnavailableException e) {
      return ProviderHealth.down(e.getMessage());
    }
    String failure = lastSyncFailure;
    if (failure != null) {
      return ProviderHealth.degraded(where + " answers, but the last push failed: " + failure);
    }
    long refused = rejected.sinceStart();
    if (refused > 0) {
      return ProviderHealth.degraded(
          where
              + " answers; "
              + refused
              + " turns refused since start, kept in "
              + rejected.file());
    }
    return new ProviderHealth(ProviderHealth.Status.UP, where);
  }

  /** The client's circuit breaker state, for tests and diagnostics. */
  CircuitBreaker.State breakerState() {
    return client.breakerState();
  }

  @Override
  public void close() {
    closed = true;
    client.close();
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("mem0 provider " + id + " is closed");
    }
  }
}
