package dev.memstack.client;

import java.util.Locale;

/**
 * One message of a {@link ConversationWindow}, in the order the model should read it.
 *
 * @param role {@code system}, {@code user} or {@code assistant}
 * @param kind {@code system} (the system prompt), {@code workspace} (workspace files), {@code
 *     summary} (the summary of the earlier turns, a user message that starts with {@link
 *     ConversationWindow#SUMMARY_PREFIX}), {@code turn} (a kept message of the conversation) or
 *     {@code current} (the message being answered); a later host may add kinds
 * @param content the text
 * @param tokens its size by the host's token counter; 0 when not given
 */
public record WindowMessage(String role, String kind, String content, Integer tokens) {

  public WindowMessage {
    role = role == null ? "" : role.toLowerCase(Locale.ROOT);
    kind = kind == null ? "" : kind.toLowerCase(Locale.ROOT);
    content = content == null ? "" : content;
    tokens = tokens == null ? 0 : tokens;
  }

  /** Whether this is the window's summary of the earlier conversation. */
  public boolean summary() {
    return "summary".equals(kind) || content.startsWith(ConversationWindow.SUMMARY_PREFIX);
  }
}
