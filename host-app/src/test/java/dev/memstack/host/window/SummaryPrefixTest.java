package dev.memstack.host.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.client.ConversationWindow;
import org.junit.jupiter.api.Test;

/**
 * The Java client (and through it Spring AI's chat memory repository) knows the window's summary
 * message by the host's own prefix, so a summary is never stored back as a turn.
 */
class SummaryPrefixTest {

  @Test
  void theClientsPrefixIsTheHosts() {
    assertThat(ConversationWindow.SUMMARY_PREFIX).isEqualTo(Windows.SUMMARY_PREFIX);
  }
}
