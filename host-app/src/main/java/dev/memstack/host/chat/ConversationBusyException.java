package dev.memstack.host.chat;

/**
 * Another message of the same conversation is still being answered (on this host or another) and
 * did not finish within {@code memstack.chat.turn-wait}: answered with 409.
 */
public final class ConversationBusyException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  ConversationBusyException(String conversationId) {
    super(
        "conversation '"
            + conversationId
            + "' is still answering an earlier message; send this one again when it is done");
  }
}
