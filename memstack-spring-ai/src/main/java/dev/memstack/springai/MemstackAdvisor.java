package dev.memstack.springai;

import dev.memstack.client.ContextAnswer;
import dev.memstack.client.ContextRequest;
import dev.memstack.client.MemstackApiException;
import dev.memstack.client.MemstackClient;
import dev.memstack.client.TriggerSource;
import dev.memstack.client.TurnRequest;
import dev.memstack.springai.MemstackMetrics.Operation;
import dev.memstack.springai.MemstackMetrics.Outcome;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.client.ChatClientMessageAggregator;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Long-term memory from a memstack host for a Spring AI {@code ChatClient}. Before the model runs
 * it asks the host for context for the user's message and puts the answer into the prompt ({@code
 * systemPrompt} and {@code ownerPrompt} into the system message, the fenced {@code context} in
 * front of the user message); after the model answered it hands the turn to the host off the
 * caller's thread. A stream is aggregated first, so a streamed answer is one turn too.
 *
 * <p><b>Parameters.</b> The end user's owner key is required: {@code .advisors(a ->
 * a.param(MemstackAdvisor.OWNER_KEY, "user:42"))}; without it the call fails with an {@link
 * IllegalStateException} that says so. The conversation is {@link ChatMemory#CONVERSATION_ID};
 * without one the advisor uses the builder's {@link Builder#defaultConversationId(String)} or, when
 * none is set, a new id for each {@code ChatClient} call (each call is then a conversation of its
 * own; recall across conversations works all the same). The id used is in the response context
 * under {@link #CONVERSATION_ID}, the host's whole context answer (recall items with their ids for
 * feedback, provider reports) under {@link #CONTEXT_ANSWER}. A prompt without user text (a system
 * message alone) passes through untouched: nothing is asked and no turn is handed in.
 *
 * <p><b>Order.</b> {@link #DEFAULT_ORDER} is Spring AI's chat-memory order, outside the
 * tool-calling loop: one user message is one context call and one turn, however many tool rounds
 * the model takes.
 *
 * <p><b>Failures.</b> When the host is down, slow or failing (no answer, a timeout, 5xx, or any
 * other refusal of the message itself), the chat goes on without memory, with a log line and a
 * {@link MemstackMetrics} record; a failed turn is logged and counted the same way and never fails
 * the chat. Only a host that refuses <i>who</i> is asking fails the call with the {@link
 * MemstackApiException}: 401, 403, and 400 naming {@code ownerKey} or {@code agentId} are
 * configuration errors to fix, not outages.
 *
 * <p>Thread-safe. {@link #close()} lets the default turn executor post what is queued.
 */
public final class MemstackAdvisor implements CallAdvisor, StreamAdvisor, AutoCloseable {

  /** The advisor parameter with the end user's owner key ({@code user:42}); required. */
  public static final String OWNER_KEY = "memstack_owner_key";

  /** The response context key of the conversation id the advisor used (given or generated). */
  public static final String CONVERSATION_ID = "memstack_conversation_id";

  /** The response context key of the host's {@link ContextAnswer}, when the context call worked. */
  public static final String CONTEXT_ANSWER = "memstack_context_answer";

  /** Spring AI's chat-memory order: outside the tool-calling loop. */
  public static final int DEFAULT_ORDER = Advisor.DEFAULT_CHAT_MEMORY_PRECEDENCE_ORDER;

  /** The 400 fields that say the caller, not the message, is wrong. */
  private static final Set<String> CALLER_FIELDS = Set.of("ownerKey", "agentId");

  private static final Logger log = LoggerFactory.getLogger(MemstackAdvisor.class);

  private final MemstackClient client;
  private final int order;
  private final String defaultConversationId;
  private final TriggerSource triggerSource;
  private final int limit;
  private final Scheduler scheduler;
  private final MemstackMetrics metrics;
  private final TurnPoster turns;
  private final boolean handInTurns;

  private MemstackAdvisor(Builder builder) {
    this.client = builder.client;
    this.order = builder.order;
    this.defaultConversationId = builder.defaultConversationId;
    this.triggerSource = builder.triggerSource;
    this.limit = builder.limit;
    this.scheduler = builder.scheduler;
    this.metrics = builder.metrics;
    this.turns = new TurnPoster(builder.client, builder.executor, builder.metrics);
    this.handInTurns = builder.handInTurns;
  }

  /** A builder for an advisor that uses {@code client}'s host and agent. */
  public static Builder builder(MemstackClient client) {
    return new Builder(client);
  }

  @Override
  public String getName() {
    return "MemstackAdvisor";
  }

  @Override
  public int getOrder() {
    return order;
  }

  @Override
  public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
    Exchange exchange = open(request);
    ChatClientResponse response = chain.nextCall(exchange.request());
    finish(exchange, response);
    return response;
  }

  @Override
  public Flux<ChatClientResponse> adviseStream(
      ChatClientRequest request, StreamAdvisorChain chain) {
    return Mono.fromCallable(() -> open(request))
        .subscribeOn(scheduler)
        .flatMapMany(
            exchange ->
                new ChatClientMessageAggregator()
                    .aggregateChatClientResponse(
                        chain.nextStream(exchange.request()),
                        chatResponse -> finish(exchange, chatResponse)));
  }

  /** Reads the parameters, asks the host, and augments the prompt. */
  private Exchange open(ChatClientRequest request) {
    String userText = request.prompt().getUserMessage().getText();
    if (userText == null || userText.isBlank()) {
      return new Exchange(request, null, null, null);
    }
    String owner = ownerKey(request);
    String conversation = conversationId(request);
    ChatClientRequest.Builder advised = request.mutate().context(CONVERSATION_ID, conversation);
    ContextAnswer answer = askHost(owner, conversation, userText);
    if (answer != null) {
      advised
          .prompt(MemoryPrompt.augment(request.prompt(), answer))
          .context(CONTEXT_ANSWER, answer);
    }
    return new Exchange(advised.build(), owner, conversation, userText);
  }

  private ContextAnswer askHost(String owner, String conversation, String userText) {
    String query =
        userText.length() > ContextRequest.MAX_QUERY_LENGTH
            ? userText.substring(0, ContextRequest.MAX_QUERY_LENGTH)
            : userText;
    try {
      ContextAnswer answer =
          client.context(new ContextRequest(owner, conversation, query, limit, false));
      metrics.record(Operation.CONTEXT, Outcome.OK);
      return answer;
    } catch (MemstackApiException e) {
      metrics.record(Operation.CONTEXT, Outcome.of(e));
      if (refusesCaller(e)) {
        throw e;
      }
      log.warn("memstack: no memory for conversation {}: {}", conversation, e.getMessage());
      return null;
    } catch (RuntimeException e) {
      metrics.record(Operation.CONTEXT, Outcome.of(e));
      log.warn("memstack: no memory for conversation {}: {}", conversation, e.getMessage());
      return null;
    }
  }

  private static boolean refusesCaller(MemstackApiException e) {
    return e.status() == 401
        || e.status() == 403
        || (e.status() == 400 && CALLER_FIELDS.contains(e.field()));
  }

  private static String ownerKey(ChatClientRequest request) {
    Object owner = request.context().get(OWNER_KEY);
    if (owner == null || owner.toString().isBlank()) {
      throw new IllegalStateException(
          "MemstackAdvisor needs the end user's owner key: give it per call with"
              + " .advisors(a -> a.param(MemstackAdvisor.OWNER_KEY, \"user:42\"))");
    }
    return owner.toString();
  }

  private String conversationId(ChatClientRequest request) {
    Object given = request.context().get(ChatMemory.CONVERSATION_ID);
    if (given != null && !given.toString().isBlank()) {
      return given.toString();
    }
    return defaultConversationId != null ? defaultConversationId : UUID.randomUUID().toString();
  }

  /**
   * One user message on its way: the advised request and what the turn will need ({@code owner} is
   * {@code null} when no turn is to be posted).
   */
  private record Exchange(
      ChatClientRequest request, String owner, String conversation, String userText) {}

  /** Hands the turn of {@code exchange} in, off this thread; never throws. */
  private void finish(Exchange exchange, ChatClientResponse response) {
    if (exchange.owner() == null || !handInTurns) {
      return;
    }
    turns.post(
        TurnRequest.of(
            exchange.owner(),
            exchange.conversation(),
            exchange.userText(),
            reply(response),
            triggerSource));
  }

  private static String reply(ChatClientResponse response) {
    ChatResponse chat = response == null ? null : response.chatResponse();
    Generation result = chat == null ? null : chat.getResult();
    String text = result == null ? null : result.getOutput().getText();
    return text == null ? "" : text;
  }

  /** Lets the default turn executor hand in what is queued (at most five seconds). */
  @Override
  public void close() {
    turns.close();
  }

  /** Settings of a {@link MemstackAdvisor}; only the client is required. */
  public static final class Builder {

    private final MemstackClient client;
    private int order = DEFAULT_ORDER;
    private String defaultConversationId;
    private TriggerSource triggerSource = TriggerSource.API;
    private int limit;
    private Executor executor;
    private MemstackMetrics metrics = MemstackMetrics.NOOP;
    private Scheduler scheduler = BaseAdvisor.DEFAULT_SCHEDULER;
    private boolean handInTurns = true;

    private Builder(MemstackClient client) {
      this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Whether the advisor hands each exchange in as a turn; default {@code true}. {@code false}
     * when a {@link MemstackChatMemoryRepository} keeps the same conversations (it hands their
     * exchanges in itself, so they would be stored twice); the advisor then only recalls.
     */
    public Builder handInTurns(boolean value) {
      this.handInTurns = value;
      return this;
    }

    /** The advisor's order; default {@link #DEFAULT_ORDER}, outside the tool-calling loop. */
    public Builder order(int value) {
      this.order = value;
      return this;
    }

    /**
     * The conversation of calls that give no {@link ChatMemory#CONVERSATION_ID}; {@code null} (the
     * default) generates one per call.
     */
    public Builder defaultConversationId(String conversationId) {
      this.defaultConversationId =
          conversationId == null || conversationId.isBlank() ? null : conversationId;
      return this;
    }

    /** The {@code triggerSource} of the turns; default {@link TriggerSource#API}. */
    public Builder triggerSource(TriggerSource value) {
      this.triggerSource = Objects.requireNonNull(value, "triggerSource");
      return this;
    }

    /** Most recall items per call, 1-200; {@code 0} (the default) is the host's default. */
    public Builder limit(int value) {
      if (value < 0 || value > 200) {
        throw new IllegalArgumentException("limit must be 0 to 200, got: " + value);
      }
      this.limit = value;
      return this;
    }

    /**
     * Where turns are posted; the advisor never closes it. Default: one daemon thread of the
     * advisor's own with a bounded queue, flushed by {@link MemstackAdvisor#close()}.
     */
    public Builder executor(Executor value) {
      this.executor = Objects.requireNonNull(value, "executor");
      return this;
    }

    /** Where call outcomes are reported; default {@link MemstackMetrics#NOOP}. */
    public Builder metrics(MemstackMetrics value) {
      this.metrics = Objects.requireNonNull(value, "metrics");
      return this;
    }

    /** Where a stream's context call runs; default Spring AI's {@code boundedElastic}. */
    public Builder scheduler(Scheduler value) {
      this.scheduler = Objects.requireNonNull(value, "scheduler");
      return this;
    }

    public MemstackAdvisor build() {
      return new MemstackAdvisor(this);
    }
  }
}
