package dev.memstack.springai;

import dev.memstack.client.ContextAnswer;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * Puts a context answer into a prompt, as the host's REST reference says: {@code systemPrompt} and
 * then {@code ownerPrompt} into the system message (after the application's own system text, or as
 * a new first message), the fenced {@code context} in front of the last user message.
 */
final class MemoryPrompt {

  private MemoryPrompt() {}

  static Prompt augment(Prompt prompt, ContextAnswer answer) {
    Prompt augmented = prompt;
    String memory = answer.systemText();
    if (!memory.isEmpty()) {
      augmented =
          augmented.augmentSystemMessage(
              system -> system.mutate().text(join(system.getText(), memory)).build());
    }
    if (!answer.context().isEmpty()) {
      augmented =
          augmented.augmentUserMessage(
              user -> user.mutate().text(join(answer.context(), user.getText())).build());
    }
    return augmented;
  }

  private static String join(String first, String second) {
    if (first == null || first.isEmpty()) {
      return second;
    }
    return second == null || second.isEmpty() ? first : first + "\n\n" + second;
  }
}
