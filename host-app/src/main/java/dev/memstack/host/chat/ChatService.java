package dev.memstack.host.chat;

import dev.memstack.host.stack.ChatRequest;
import dev.memstack.host.stack.ContextAnswer;
import dev.memstack.host.stack.ContextQuery;
import dev.memstack.host.stack.MemoryStack;
import dev.memstack.host.stack.TurnRequest;
import dev.memstack.host.window.ConversationWindows;
import dev.memstack.host.window.TokenCounter;
import dev.memstack.host.window.Window;
import dev.memstack.host.window.WindowMessage;
import dev.memstack.host.window.WindowRequest;
import dev.memstack.spi.Coordination;
import dev.memstack.support.CoordinatedWork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * Chat with the whole stack, in process: the context call (system prompt, owner prompt, fenced
 * recall) → the conversation window (summary and recent turns within the model's input budget) →
 * the configured chat model through Spring AI's {@link ChatClient} → the turn to the outbox and the
 * conversation log. Messages of one conversation are answered one at a time, in order, also across
 * hosts in shared mode (a fair lock per conversation on this host, then a coordination lock). A
 * model that reports a context overflow gets the window's emergency form once. Thread-safe.
 */
public final class ChatService {

  private static final Logger log = LoggerFactory.getLogger(ChatService.class);

  /** Locks on this host: conversations hashed onto a fixed set of fair locks. */
  private static final int STRIPES = 256;

  /** How long a conversation's cross-host lock lasts without renewal. */
  private static final Duration LEASE = Duration.ofMinutes(10);

  private final MemoryStack stack;
  private final ConversationWindows windows;
  private final ChatModel model;
  private final Coordination coordination;
  private final Duration turnWait;
  private final TokenCounter.Calibration calibration;
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];

  /**
   * @param model the chat model; {@code null} when none is configured (every call then answers
   *     {@link ChatModelMissingException})
   * @param coordination where a conversation's lock lives across hosts
   * @param turnWait how long a message waits for an earlier one of its conversation
   * @param calibration the windows' token counter for the chat model, which learns from the prompt
   *     sizes the model reports
   */
  public ChatService(
      MemoryStack stack,
      ConversationWindows windows,
      ChatModel model,
      Coordination coordination,
      Duration turnWait,
      TokenCounter.Calibration calibration) {
    this.stack = Objects.requireNonNull(stack, "stack");
    this.windows = Objects.requireNonNull(windows, "windows");
    this.model = model;
    this.coordination = Objects.requireNonNull(coordination, "coordination");
    this.turnWait = Objects.requireNonNull(turnWait, "turnWait");
    this.calibration = Objects.requireNonNull(calibration, "calibration");
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock(true);
    }
  }

  /** Whether a chat model is configured. */
  public boolean available() {
    return model != null;
  }

  /** Answers one message and stores the turn. */
  public ChatReply chat(ChatRequest request) {
    requireModel();
    return inOrder(
        request,
        () -> {
          Prepared prepared = prepare(request);
          ChatResponse response;
          Window window = prepared.window();
          try {
            response = call(window);
          } catch (RuntimeException e) {
            if (!overflow(e)) {
              throw e;
            }
            window = windows.emergency(prepared.windowRequest());
            log.info(
                "The chat model reported a context overflow in a conversation; retrying once"
                    + " with the emergency window ({} tokens)",
                window.tokens().total());
            response = call(window);
          }
          String reply = text(response);
          String turnId = store(request, reply);
          return answer(request, prepared.context(), window, reply, turnId, usage(response));
        });
  }

  /**
   * Answers one message as a stream of text pieces handed to {@code delta}, which returns {@code
   * false} once the client is gone: generation then stops, and the turn is stored with what was
   * generated (when anything was). The answer is what {@link #chat} answers.
   */
  public ChatReply stream(ChatRequest request, Predicate<String> delta) {
    requireModel();
    return inOrder(
        request,
        () -> {
          Prepared prepared = prepare(request);
          Window window = prepared.window();
          StringBuilder reply = new StringBuilder();
          Usage[] usage = new Usage[1];
          try {
            streamInto(window, reply, usage, delta);
          } catch (RuntimeException e) {
            if (!overflow(e) || !reply.isEmpty()) {
              throw e;
            }
            window = windows.emergency(prepared.windowRequest());
            streamInto(window, reply, usage, delta);
          }
          String turnId = reply.isEmpty() ? null : store(request, reply.toString());
          return answer(
              request, prepared.context(), window, reply.toString(), turnId, counts(usage[0]));
        });
  }

  private void streamInto(
      Window window, StringBuilder reply, Usage[] usage, Predicate<String> delta) {
    try (Stream<ChatResponse> pieces =
        ChatClient.create(model).prompt(prompt(window)).stream().chatResponse().toStream()) {
      for (ChatResponse piece : (Iterable<ChatResponse>) pieces::iterator) {
        if (piece.getMetadata() != null && piece.getMetadata().getUsage() != null) {
          Usage reported = piece.getMetadata().getUsage();
          if (reported.getPromptTokens() != null && reported.getPromptTokens() > 0) {
            usage[0] = reported;
          }
        }
        String text = piece.getResult() == null ? null : piece.getResult().getOutput().getText();
        if (text == null || text.isEmpty()) {
          continue;
        }
        reply.append(text);
        if (!delta.test(text)) {
          log.debug("A chat client left mid-stream; storing what was generated");
          return; // closing the stream cancels the model call
        }
      }
    }
  }

  private record Prepared(ContextAnswer context, WindowRequest windowRequest, Window window) {}

  private Prepared prepare(ChatRequest request) {
    ContextAnswer context =
        stack.context(
            new ContextQuery(
                request.agent(),
                request.owner(),
                request.conversationId(),
                request.message(),
                0,
                false));
    WindowRequest windowRequest =
        new WindowRequest(
            request.agent(),
            request.owner(),
            request.conversationId(),
            systemText(context),
            null,
            request.message(),
            null);
    return new Prepared(context, windowRequest, windows.window(windowRequest));
  }

  /** The system prompt the model gets: the shared prompt, the owner's, and the fenced recall. */
  static String systemText(ContextAnswer context) {
    List<String> parts = new ArrayList<>();
    for (String part : List.of(context.systemPrompt(), context.ownerPrompt(), context.context())) {
      if (part != null && !part.isBlank()) {
        parts.add(part.strip());
      }
    }
    return String.join("\n\n", parts);
  }

  private ChatResponse call(Window window) {
    ChatResponse response = ChatClient.create(model).prompt(prompt(window)).call().chatResponse();
    if (response == null || response.getResult() == null) {
      throw new IllegalStateException("the chat model returned no answer");
    }
    return response;
  }

  static Prompt prompt(Window window) {
    List<Message> messages = new ArrayList<>(window.messages().size());
    for (WindowMessage message : window.messages()) {
      messages.add(
          switch (message.role()) {
            case "system" -> new SystemMessage(message.content());
            case "assistant" -> new AssistantMessage(message.content());
            default -> new UserMessage(message.content());
          });
    }
    return new Prompt(messages);
  }

  private String store(ChatRequest request, String reply) {
    return stack.submit(
        new TurnRequest(
            request.agent(),
            request.owner(),
            request.conversationId(),
            null,
            request.message(),
            reply,
            request.triggerSource(),
            null));
  }

  private ChatReply answer(
      ChatRequest request,
      ContextAnswer context,
      Window window,
      String reply,
      String turnId,
      ChatReply.Usage usage) {
    calibration.observe(window.tokens().total(), usage.promptTokens());
    return new ChatReply(
        reply,
        request.conversationId(),
        request.owner().value(),
        turnId,
        usage,
        new ChatReply.WindowUse(
            window.mode(), window.tokens().total(), window.tokens().budget(), window.compacted()),
        context.providers());
  }

  private static String text(ChatResponse response) {
    String text = response.getResult().getOutput().getText();
    return text == null ? "" : text;
  }

  private static ChatReply.Usage usage(ChatResponse response) {
    return counts(response.getMetadata() == null ? null : response.getMetadata().getUsage());
  }

  private static ChatReply.Usage counts(Usage usage) {
    if (usage == null) {
      return new ChatReply.Usage(0, 0);
    }
    return new ChatReply.Usage(
        usage.getPromptTokens() == null ? 0 : usage.getPromptTokens(),
        usage.getCompletionTokens() == null ? 0 : usage.getCompletionTokens());
  }

  /**
   * Whether a model failure says the input was too long: OpenAI's {@code context_length_exceeded},
   * Ollama's and llama.cpp's context messages.
   */
  static boolean overflow(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
      if (message.contains("context_length_exceeded")
          || message.contains("context length")
          || message.contains("context window")
          || message.contains("exceeds the context")
          || message.contains("prompt is too long")
          || message.contains("too many tokens")) {
        return true;
      }
    }
    return false;
  }

  private void requireModel() {
    if (model == null) {
      throw new ChatModelMissingException();
    }
  }

  /** Runs {@code work} while no other message of the conversation is being answered. */
  private <T> T inOrder(ChatRequest request, java.util.function.Supplier<T> work) {
    String key =
        "chat:"
            + request.agent().value()
            + "/"
            + request.owner().value()
            + "/"
            + request.conversationId();
    ReentrantLock local = stripes[Math.floorMod(key.hashCode(), STRIPES)];
    long waitNanos = turnWait.toNanos();
    long start = System.nanoTime();
    try {
      if (!local.tryLock(waitNanos, java.util.concurrent.TimeUnit.NANOSECONDS)) {
        throw new ConversationBusyException(request.conversationId());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConversationBusyException(request.conversationId());
    }
    try {
      Duration left = Duration.ofNanos(Math.max(0, waitNanos - (System.nanoTime() - start)));
      Optional<Coordination.Lease> lease =
          CoordinatedWork.awaitLock(coordination, key, LEASE, left);
      if (lease.isEmpty()) {
        throw new ConversationBusyException(request.conversationId());
      }
      try (Coordination.Lease held = lease.get()) {
        return work.get();
      }
    } finally {
      local.unlock();
    }
  }
}
