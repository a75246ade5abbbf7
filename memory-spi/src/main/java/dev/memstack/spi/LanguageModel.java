package dev.memstack.spi;

import java.time.Duration;

/**
 * The host's chat model, for providers that summarise or extract. Thread-safe. When no chat model
 * is configured {@link #available()} is {@code false} and {@link #complete} throws {@link
 * NoLanguageModelException}; features that need a model then report "no chat model configured"
 * instead of failing.
 */
public interface LanguageModel {

  /** Whether a chat model is configured. */
  boolean available();

  /** The configured model's id, or {@code none}. */
  String modelId();

  /**
   * One completion.
   *
   * @param system the system prompt, never {@code null}
   * @param user the user prompt, never {@code null}
   * @param timeout how long to wait at most
   * @return the model's answer text, never {@code null}
   * @throws NoLanguageModelException if none is configured
   * @throws IllegalStateException if the model fails or times out
   */
  String complete(String system, String user, Duration timeout);

  /** A language model that is not there. */
  static LanguageModel none() {
    return NoLanguageModel.INSTANCE;
  }

  /** Thrown by {@link #complete} when no chat model is configured. */
  final class NoLanguageModelException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public NoLanguageModelException() {
      super("no chat model configured");
    }
  }
}
