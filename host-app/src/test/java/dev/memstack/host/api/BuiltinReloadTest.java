package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.Concurrently;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.JsonNode;

/**
 * Reloading the real builtin plugin while context calls, file writes and turns keep coming: the old
 * instance must let go of its data directory (the Lucene index's write lock above all) before the
 * new one opens it, and nothing written before or during the reload may be lost.
 */
@HostTest
@DirtiesContext
@DisplayName("Reloading the builtin plugin")
class BuiltinReloadTest {

  @RegisterExtension static final HostFolder HOST = HostFolder.builtinOnly("builtin-reload");

  @Autowired HostClient api;

  private static final String CONTEXT =
      "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\"heron\"}";

  @Test
  @DisplayName("opens the new instance on the same data directory while calls keep coming")
  void reloadsUnderLoadWithoutLosingAWrite() throws Exception {
    assertThat(
            api.putFile(
                    "/api/v1/agents/r1/workspace/files/KNOWLEDGE.md", "the heron nests by the weir")
                .status())
        .isEqualTo(200);
    AtomicInteger contextCalls = new AtomicInteger();
    Queue<String> written = new ConcurrentLinkedQueue<>();
    Concurrently load =
        Concurrently.repeat(
                2,
                (caller, round) -> {
                  Answer answer = api.post("/api/v1/agents/r1/memory/context", CONTEXT);
                  contextCalls.incrementAndGet();
                  assertThat(answer.status()).as("context: " + answer.body()).isEqualTo(200);
                })
            .and(
                1,
                (caller, round) -> {
                  String word = "wren" + round + "x";
                  Answer answer =
                      api.putFile(
                          "/api/v1/agents/r1/workspace/files/notes/n" + round + ".md", "a " + word);
                  if (answer.status() == 200) {
                    written.add(word);
                  } else {
                    // while the plugin is away the route answers 503 (not running) or 502 (closed)
                    assertThat(answer.status()).as("write: " + answer.body()).isIn(503, 502);
                  }
                })
            .and(
                1,
                (caller, round) -> {
                  Answer answer =
                      api.post(
                          "/api/v1/agents/r1/memory/turns",
                          "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"turnId\":\"t-"
                              + round
                              + "\",\"userMessage\":\"note "
                              + round
                              + "\",\"assistantReply\":\"ok\",\"triggerSource\":\"api\"}");
                  assertThat(answer.status()).as("turn: " + answer.body()).isEqualTo(202);
                  sleep(20);
                });

    List<Answer> reloads = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      sleep(400);
      reloads.add(api.post("/api/v1/plugins/memstack-builtin/reload", ""));
    }
    sleep(400);
    load.stop(Duration.ofSeconds(30));

    assertThat(reloads).allSatisfy(r -> assertThat(r.status()).as(r.body()).isEqualTo(200));
    assertThat(reloads.get(2).json().get("state").asString()).isEqualTo("started");
    assertThat(load.failures()).as("failed context calls, writes and turns").isEmpty();
    assertThat(contextCalls.get()).isGreaterThan(5);
    assertThat(written).as("writes that succeeded").isNotEmpty();

    Answer after = api.post("/api/v1/agents/r1/memory/context", CONTEXT);
    JsonNode builtin =
        StreamSupport.stream(after.json().get("providers").spliterator(), false)
            .filter(p -> p.get("id").asString().equals("builtin"))
            .findFirst()
            .orElseThrow();
    assertThat(builtin.get("status").asString()).isEqualTo("ok");
    assertThat(after.json().get("systemPrompt").asString()).contains("--- AGENTS.md ---");
    assertThat(search("heron")).as("a word written before the reloads").isEqualTo(1);
    for (String word : written) {
      assertThat(search(word)).as("%s, written while reloading", word).isEqualTo(1);
    }
    assertThat(api.putFile("/api/v1/agents/r1/workspace/files/after.md", "the kestrel").status())
        .isEqualTo(200);
    assertThat(search("kestrel")).isEqualTo(1);
  }

  // ---------------------------------------------------------------- helpers

  private int search(String word) {
    Answer answer =
        api.post("/api/v1/agents/r1/workspace/search", "{\"query\":\"" + word + "\"}").expect(200);
    return answer.json().get("count").asInt();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
