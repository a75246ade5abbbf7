package dev.memstack.host.window;

import dev.memstack.support.Require;
import java.util.List;

/**
 * One conversation window, ready to send.
 *
 * @param messages the messages in order, never {@code null}
 * @param tokens the token count of each part, by {@code counter}
 * @param counter the counter used: {@code jtokkit:<encoding>} or {@code estimate}
 * @param compacted whether older turns are replaced by a summary
 * @param summary the summary, {@code null} when there is none
 * @param mode {@code full} (everything fits), {@code compacted} (older turns summarised), {@code
 *     sliding} (no chat model: the newest messages of the sliding window), {@code trimmed}
 *     (messages dropped from the front to fit) or {@code emergency} (after a context overflow)
 */
public record Window(
    List<WindowMessage> messages,
    Tokens tokens,
    String counter,
    boolean compacted,
    Summary summary,
    String mode) {

  public Window {
    messages = List.copyOf(messages);
    Require.nonNull("tokens counter mode", tokens, counter, mode);
  }
}
