package dev.memstack.host.model;

import dev.memstack.spi.LanguageModel;
import dev.memstack.support.DaemonThreads;
import dev.memstack.support.Require;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * A {@link LanguageModel} backed by an Ollama server through Spring AI's {@code OllamaChatModel}
 * ({@code memstack.models.chat=ollama}; server and model from {@code memstack.models.ollama.*}).
 * Each completion is one non-streaming {@code /api/chat} call, not retried, that waits at most the
 * caller's timeout (and never longer than {@code memstack.models.ollama.chat-timeout}); a call that
 * runs out of time is cancelled. Thread-safe; {@link #close()} stops its call threads.
 */
public final class OllamaLanguageModel implements LanguageModel, AutoCloseable {

  private final ChatModel model;
  private final String modelId;
  private final String server;
  private final Duration maxTimeout;
  private final ExecutorService calls;

  /** A language model for the configured Ollama server and chat model. */
  public static OllamaLanguageModel create(ModelProperties.Ollama settings) {
    return new OllamaLanguageModel(
        OllamaClients.chatModel(settings),
        settings.chatModel(),
        settings.baseUrl(),
        settings.chatTimeout());
  }

  OllamaLanguageModel(ChatModel model, String modelName, String server, Duration maxTimeout) {
    this.model = Objects.requireNonNull(model, "model");
    this.modelId = "ollama:" + Objects.requireNonNull(modelName, "modelName");
    this.server = Objects.requireNonNull(server, "server");
    this.maxTimeout = Objects.requireNonNull(maxTimeout, "maxTimeout");
    this.calls = Executors.newCachedThreadPool(DaemonThreads.numbered("memstack-chat-"));
  }

  /** Spring AI's chat model behind it, for the chat endpoints (which stream through it). */
  public ChatModel chatModel() {
    return model;
  }

  @Override
  public boolean available() {
    return true;
  }

  @Override
  public String modelId() {
    return modelId;
  }

  @Override
  public String complete(String system, String user, Duration timeout) {
    Require.nonNull("system user timeout", system, user, timeout);
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got: " + timeout);
    }
    Duration wait = timeout.compareTo(maxTimeout) < 0 ? timeout : maxTimeout;
    Prompt prompt = new Prompt(List.of(new SystemMessage(system), new UserMessage(user)));
    Future<ChatResponse> call = calls.submit(() -> model.call(prompt));
    ChatResponse response;
    try {
      response = call.get(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new IllegalStateException(
          "chat model " + modelId + " at " + server + " did not answer within " + wait, e);
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for chat model " + modelId, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new IllegalStateException(
          "chat model " + modelId + " at " + server + " failed: " + cause.getMessage(), cause);
    }
    if (response == null || response.getResult() == null) {
      throw new IllegalStateException(
          "chat model " + modelId + " at " + server + " returned no answer");
    }
    String text = response.getResult().getOutput().getText();
    return text == null ? "" : text;
  }

  @Override
  public void close() {
    calls.shutdownNow();
  }

  @Override
  public String toString() {
    return "OllamaLanguageModel[" + modelId + " at " + server + "]";
  }
}
