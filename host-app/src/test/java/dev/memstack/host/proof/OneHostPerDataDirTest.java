package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.memstack.host.testing.TestHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reproduction of "two hosts on one data dir": with the journal in memory and both stored
 * providers off (nothing else would lock a file), a second host on a running host's data dir must
 * not start, and must name the folder; once the first has stopped, it starts.
 */
class OneHostPerDataDirTest {

  private TestHost first;
  private TestHost second;

  @AfterEach
  void stop() {
    if (second != null) {
      second.close();
    }
    if (first != null) {
      first.close();
    }
  }

  private static TestHost bare(String name) {
    return TestHost.withTestEmbedder(name)
        .with("memstack.outbox.type", "memory")
        .with("memstack.providers.builtin.enabled", "false")
        .with("memstack.providers.vector.enabled", "false");
  }

  @Test
  void aSecondHostOnARunningHostsDataDirDoesNotStart() {
    first = bare("one-host-first").start();
    String dataDir = first.dataDir().toAbsolutePath().normalize().toString();
    second = bare("one-host-second").with("memstack.data-dir", dataDir);

    Throwable failure = catchThrowable(second::start);
    assertThat(failure).as("the second host's start").isNotNull();
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    assertThat(messages.toString()).contains(dataDir).contains("memstack.data-dir");
    first.client().post("/api/v1/agents/a1/memory/turns", turn()).expect(202);

    first.stop();
    second.start();
    second.client().post("/api/v1/agents/a1/memory/turns", turn()).expect(202);
  }

  private static String turn() {
    return "{\"ownerKey\":\"api:1\",\"conversationId\":\"c1\",\"userMessage\":\"hello\","
        + "\"assistantReply\":\"hi\",\"triggerSource\":\"api\"}";
  }
}
