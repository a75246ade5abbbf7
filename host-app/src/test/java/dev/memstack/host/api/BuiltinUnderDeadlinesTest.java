package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.testing.Concurrently;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The real builtin plugin under deadlines so short that the stack interrupts nearly every call it
 * makes (system prompt blocks that seed new agents, recall): an interrupt that lands in a file
 * write must not break the provider's keyword index for the calls that follow.
 */
@HostTest
@DirtiesContext
@DisplayName("The builtin plugin under the stack's deadlines")
class BuiltinUnderDeadlinesTest {

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.builtinOnly("builtin-deadline")
          // every builtin call the stack makes is late and interrupted
          .with("memstack.stack.context.provider-timeout", "1ms")
          .with("memstack.stack.context.deadline", "30ms")
          .with("memstack.stack.system-prompt.timeout", "1ms")
          .with("memstack.stack.context.max-late-calls-per-provider", "16")
          .with("memstack.stack.breaker.failure-threshold", "1000000")
          .with("memstack.providers.builtin.config.index-commit-interval", "0s");

  @Autowired HostClient api;

  @Test
  @DisplayName("keeps the keyword index working after many interrupted calls")
  void keepsTheIndexWorkingAfterInterruptedCalls() throws Exception {
    AtomicInteger timeouts = new AtomicInteger();
    Concurrently callers =
        Concurrently.repeat(
            3,
            (caller, round) -> {
              // a new agent each time: its system prompt block seeds four files
              Answer answer =
                  api.post(
                      "/api/v1/agents/d" + caller + "-" + round + "/memory/context",
                      "{\"ownerKey\":\"user:1\",\"query\":\"heron\"}");
              assertThat(answer.status()).as(answer.body()).isEqualTo(200);
              if (answer.body().contains("\"timeout\"")) {
                timeouts.incrementAndGet();
              }
            });
    Thread.sleep(3000);
    callers.stop(Duration.ofSeconds(30));
    // let the calls the stack gave up on run out
    Thread.sleep(1000);

    assertThat(callers.failures()).isEmpty();
    assertThat(timeouts.get()).as("context calls whose builtin call was cut off").isPositive();
    Answer write =
        api.putFile("/api/v1/agents/d0-0/workspace/files/KNOWLEDGE.md", "the bittern booms")
            .expect(200);
    assertThat(search("d0-0", "bittern", null)).as("a word written after the interrupts").isOne();
    Answer turn =
        api.post(
                "/api/v1/agents/d0-0/memory/turns",
                "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"the"
                    + " curlew calls\",\"assistantReply\":\"ok\",\"triggerSource\":\"api\"}")
            .expect(202);
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(() -> assertThat(search("d0-0", "curlew", "user:1")).isOne());
  }

  // ---------------------------------------------------------------- helpers

  private int search(String agent, String word, String owner) {
    String body =
        owner == null
            ? "{\"query\":\"" + word + "\"}"
            : "{\"query\":\"" + word + "\",\"ownerKey\":\"" + owner + "\"}";
    Answer answer = api.post("/api/v1/agents/" + agent + "/workspace/search", body).expect(200);
    return answer.json().get("count").asInt();
  }
}
