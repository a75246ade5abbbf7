package dev.memstack.host.conversation;

/**
 * What a {@link ConversationLog} keeps: the newest {@code maxTurns} turns per agent, owner and
 * conversation, each message cut at {@code maxMessageChars} ({@link ConversationEntry#of}).
 *
 * @param maxTurns turns kept per agent, owner and conversation, at least 1
 * @param maxMessageChars characters kept per message, at least 1
 */
public record ConversationLimits(int maxTurns, int maxMessageChars) {

  /** The host's limits. */
  public static final ConversationLimits DEFAULT =
      new ConversationLimits(
          ConversationConfiguration.MAX_TURNS, ConversationConfiguration.MAX_MESSAGE_CHARS);

  public ConversationLimits {
    if (maxTurns < 1) {
      throw new IllegalArgumentException("maxTurns must be at least 1, got " + maxTurns);
    }
    if (maxMessageChars < 1) {
      throw new IllegalArgumentException(
          "maxMessageChars must be at least 1, got " + maxMessageChars);
    }
  }
}
