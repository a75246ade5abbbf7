package dev.memstack.host.chat;

import dev.memstack.host.stack.ProviderReport;
import java.util.List;

/**
 * The answer of a chat call.
 *
 * @param reply what the model answered
 * @param conversationId the conversation
 * @param ownerKey the owner it was answered for
 * @param turnId the id of the stored turn (message and reply)
 * @param usage the tokens the model counted (0 when it did not report them)
 * @param window how the conversation was fitted into the model's input: the window's mode and the
 *     host's token count of what was sent
 * @param providers each provider's part in the recall
 */
public record ChatReply(
    String reply,
    String conversationId,
    String ownerKey,
    String turnId,
    Usage usage,
    WindowUse window,
    List<ProviderReport> providers) {

  /** Tokens as the model counted them. */
  public record Usage(int promptTokens, int completionTokens) {}

  /**
   * The window that was sent: {@code mode} ({@code full}, {@code compacted}, {@code sliding},
   * {@code trimmed}, {@code emergency}), the host's count of its tokens and the budget.
   */
  public record WindowUse(String mode, int tokens, int budget, boolean compacted) {}
}
