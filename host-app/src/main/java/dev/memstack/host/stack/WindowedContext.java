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
 * memory_context} call it. {@link #preview} answers the same and changes nothing: the providers are
 * asked with {@link dev.memstack.spi.RecallRequest#preview()}, the joined system prompt and a
 * summary the window makes are not cached, and the morning card is shown without being claimed.
 */
public final class WindowedContext {

  /**
   * Where the morning card of a context call comes from: the owner's card when this is their first
   * call of the day that asks for it, else empty.
   */
  @FunctionalInterface
  public interface MorningCardSource {
    java.util.Optional<tools.jackson.databind.JsonNode> firstOfDay(
        dev.memstack.spi.AgentId agent, dev.memstack.spi.OwnerKey owner);

    /**
     * The owner's card as it stands, without claiming the day's showing: the next {@link
     * #firstOfDay} still carries it. Empty by default.
     */
    default java.util.Optional<tools.jackson.databind.JsonNode> peek(
        dev.memstack.spi.AgentId agent, dev.memstack.spi.OwnerKey owner) {
      return java.util.Optional.empty();
    }
  }

  private final MemoryStack stack;
  private final ConversationWindows windows;
  private final MorningCardSource cards;

  public WindowedContext(MemoryStack stack, ConversationWindows windows) {
    this(stack, windows, (agent, owner) -> java.util.Optional.empty());
  }

  public WindowedContext(MemoryStack stack, ConversationWindows windows, MorningCardSource cards) {
    this.stack = Objects.requireNonNull(stack, "stack");
    this.windows = Objects.requireNonNull(windows, "windows");
    this.cards = Objects.requireNonNull(cards, "cards");
  }

  /** The stack's answer to {@code query}, with the window and the morning card when asked. */
  public ContextAnswer context(ContextQuery query) {
    return answer(query, false);
  }

  /**
   * What {@link #context} would answer to {@code query} now, changing nothing a later call reads:
   * with the window and the owner's current morning card (shown whether or not a context call
   * carried it today, and left unclaimed) when asked.
   */
  public ContextAnswer preview(ContextQuery query) {
    return answer(query, true);
  }

  private ContextAnswer answer(ContextQuery query, boolean preview) {
    ContextAnswer answer = windowed(query, preview);
    if (query.morningCard() && query.owner() != null) {
      var card =
          preview
              ? cards.peek(query.agent(), query.owner())
              : cards.firstOfDay(query.agent(), query.owner());
      if (card.isPresent()) {
        answer = answer.withMorningCard(card.get());
      }
    }
    return answer;
  }

  private ContextAnswer windowed(ContextQuery query, boolean preview) {
    ContextAnswer answer = preview ? stack.preview(query) : stack.context(query);
    if (!query.window()) {
      return answer;
    }
    String system = join(answer.systemPrompt(), answer.ownerPrompt());
    String current = join(answer.context(), query.query());
    WindowRequest request =
        new WindowRequest(
            query.agent(), query.owner(), query.conversationId(), system, "", current, null);
    Window window = preview ? windows.preview(request) : windows.window(request);
    return answer.withWindow(WindowView.of(request, window));
  }

  private static String join(String first, String second) {
    if (first.isBlank()) {
      return second;
    }
    return second.isBlank() ? first : first + "\n\n" + second;
  }
}
