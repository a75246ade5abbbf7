package dev.memstack.host.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.conversation.FileConversationLog;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 300-turn conversation with {@code default-max-input-tokens} 4,000, each reply about 200 tokens,
 * driven through {@link ConversationWindows} and {@link ConversationLog#append}: every window stays
 * within 4,000 tokens by the host's count (recounted message by message), older turns are compacted
 * at least 10 times, the summary always arrives as a prefixed user message and the last exchange is
 * always verbatim.
 */
class LongConversationTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey OWNER = OwnerKey.of("user:1");
  private static final String MODEL = "ollama:llama3.2";

  @TempDir Path dataDir;

  @Test
  void threeHundredTurnsStayWithinFourThousandTokensAndCompactAtLeastTenTimes() {
    ConversationLog log = new FileConversationLog(dataDir, 200, 20_000);
    AtomicInteger summaries = new AtomicInteger();
    ScriptedChatModel model =
        new ScriptedChatModel(
            MODEL,
            user -> {
              summaries.incrementAndGet();
              return ("Summary "
                      + summaries.get()
                      + ": the user plans trips, likes tea, asked about"
                      + " trains and museums; the assistant gave times and prices. ")
                  .repeat(8);
            });
    TokenCounter counter = new TokenCounter();
    WindowProperties properties =
        new WindowProperties(4_000, 0.75, 2, 10, 300, null, null, 20, null);
    Windows windows =
        new Windows(
            log, model, counter, new FileSummaryStore(dataDir), properties, Clock.systemUTC());
    String system = "You are a travel assistant. Answer briefly and precisely. ".repeat(6);
    String workspace = "--- PROFILE.md ---\nThe user lives in Lisbon and travels by train.\n";

    int compactedWindows = 0;
    String lastUser = null;
    String lastReply = null;
    for (int i = 1; i <= 300; i++) {
      String user =
          "Turn " + i + ": which train should I take from Lisbon to Porto on day " + i + "?";
      Window window =
          windows.window(new WindowRequest(AGENT, OWNER, "c1", system, workspace, user, null));

      int recounted =
          window.messages().stream().mapToInt(m -> counter.message(MODEL, m.content())).sum();
      assertThat(recounted).as("turn %d", i).isEqualTo(window.tokens().total());
      assertThat(window.tokens().total()).as("turn %d", i).isLessThanOrEqualTo(4_000);
      assertThat(window.tokens().budget()).isEqualTo(4_000);
      if (window.compacted()) {
        compactedWindows++;
        assertThat(window.messages().get(2).role()).isEqualTo("user");
        assertThat(window.messages().get(2).content()).startsWith(Windows.SUMMARY_PREFIX);
      }
      if (lastUser != null) {
        int n = window.messages().size();
        assertThat(window.messages().get(n - 3).content()).isEqualTo(lastUser);
        assertThat(window.messages().get(n - 2).content()).isEqualTo(lastReply);
      }
      String reply =
          "Take the Alfa Pendular at 8:39 from Santa Apolónia; it arrives at 11:29 in Campanhã."
                  .repeat(6)
              + " Day "
              + i
              + ".";
      log.append(WindowsTest.turn(OWNER, "c1", i, user, reply));
      lastUser = user;
      lastReply = reply;
    }
    assertThat(summaries.get()).isGreaterThanOrEqualTo(10);
    assertThat(compactedWindows).isGreaterThan(200);
    // the reply is about 200 tokens by the host's count
    assertThat(counter.count(MODEL, lastReply)).isBetween(150, 300);
  }
}
