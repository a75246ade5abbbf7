package dev.memstack.host.chat;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the chat endpoints ({@code memstack.chat.*}); the chat model itself is {@code
 * memstack.models.chat}.
 *
 * @param turnWait How long a chat message waits for an earlier message of the same conversation to
 *     be answered (on this host or, in shared mode, another) before it is refused with HTTP 409.
 * @param streamTimeout Longest a streamed answer (/chat/stream) may take before the stream is
 *     closed with an error event.
 */
@ConfigurationProperties("memstack.chat")
public record ChatProperties(
    @DefaultValue("2m") Duration turnWait, @DefaultValue("10m") Duration streamTimeout) {

  public ChatProperties {
    turnWait = turnWait == null ? Duration.ofMinutes(2) : turnWait;
    streamTimeout = streamTimeout == null ? Duration.ofMinutes(10) : streamTimeout;
    if (turnWait.isNegative()) {
      throw new IllegalArgumentException(
          "memstack.chat.turn-wait must not be negative, got: " + turnWait);
    }
    if (streamTimeout.isNegative() || streamTimeout.isZero()) {
      throw new IllegalArgumentException(
          "memstack.chat.stream-timeout must be positive, got: " + streamTimeout);
    }
  }
}
