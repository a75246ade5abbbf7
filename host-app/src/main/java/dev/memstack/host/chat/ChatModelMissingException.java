package dev.memstack.host.chat;

/** No chat model is configured ({@code memstack.models.chat=none}): answered with 409. */
public final class ChatModelMissingException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  ChatModelMissingException() {
    super(
        "chat needs a chat model: set memstack.models.chat (ollama) and its server"
            + " (memstack.models.ollama.*)");
  }
}
