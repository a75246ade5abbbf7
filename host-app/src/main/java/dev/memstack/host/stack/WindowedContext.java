package dev.memstack.host.stack;

import dev.memstack.host.window.ConversationWindows;
import dev.memstack.host.window.Window;
import dev.memstack.host.window.WindowRequest;
import dev.memstack.host.window.WindowView;
import java.util.Objects;

/**
 * The context call with the conversation window when it asks for one ({@link ContextQuery#window}):
 * the stack's answer, and the window computed with that answer's own system prompt (the system and
 * owner prompts, joined by a blank line) and, as the current message, its fenced context block in
 * front of the query (as an integrator sends it). The REST context route and the MCP tool {@code
 * memory_context} call it.
 */
public final class WindowedContext {

  private final MemoryStack stack;
  private final ConversationWindows windows;

  public WindowedContext(MemoryStack stack, ConversationWindows windows) {
    this.stack = Objects.requireNonNull(stack, "stack");
    this.windows = Objects.requireNonNull(windows, "windows");
  }

  /** The stack's answer to {@code query}, with the window when asked. */
  public ContextAnswer context(ContextQuery query) {
    ContextAnswer answer = stack.context(query);
    if (!query.window()) {
      return answer;
    }
    String system = join(answer.systemPrompt(), answer.ownerPrompt());
    String current = join(answer.context(), query.query());
    WindowRequest request =
        new WindowRequest(
            query.agent(), query.owner(), query.conversationId(), system, "", current, null);
    Window window = windows.window(request);
    return answer.withWindow(WindowView.of(request, window));
  }

  private static String join(String first, String second) {
    if (first.isBlank()) {
      return second;
    }
    return second.isBlank() ? first : first + "\n\n" + second;
  }
}
