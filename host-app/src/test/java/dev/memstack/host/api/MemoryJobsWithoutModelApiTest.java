package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Without a chat model (the default) the memory-job endpoints answer {@code 409 no chat model
 * configured} while turns and context calls work as before.
 */
@HostTest
class MemoryJobsWithoutModelApiTest {

  @RegisterExtension static final HostFolder HOST = HostFolder.allPlugins("memory-jobs-none");

  @Autowired HostClient api;

  private static void assertNoModel(Answer answer) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(409);
    assertThat(answer.json().get("error").asString()).isEqualTo("conflict");
    assertThat(answer.json().get("message").asString()).isEqualTo("no chat model configured");
  }

  @Test
  void theMemoryJobEndpointsAnswerConflictAndContextCallsStillWork() {
    Answer turn =
        api.post(
                "/api/v1/agents/a1/memory/turns",
                "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"userMessage\":\"My favourite"
                    + " language is Kotlin\",\"assistantReply\":\"Noted.\",\"triggerSource\":\"web\"}")
            .expect(202);

    assertNoModel(api.post("/api/v1/memory/a1/summarize/c1", "{\"ownerKey\":\"user:1\"}"));
    assertNoModel(api.post("/api/v1/memory/a1/emergence", "{}"));
    assertNoModel(api.send(api.request("/api/v1/memory/a1/dreaming/status").GET()));

    Answer context =
        api.post(
                "/api/v1/agents/a1/memory/context",
                "{\"ownerKey\":\"user:1\",\"conversationId\":\"c1\",\"query\":\"favourite language\"}")
            .expect(200);
    assertThat(context.json().get("systemPrompt").asString()).contains("AGENTS.md");
  }

  @Test
  void theLifecycleRoutesThatNeedAModelNameItAndTheCardStillAnswers() {
    for (Answer answer :
        new Answer[] {
          api.post("/api/v1/agents/a1/memory/dream/focused?ownerKey=user:1", "{\"topic\":\"tea\"}"),
          api.post("/api/v1/memory/a1/structured-consolidation", "{}"),
          api.post("/api/v1/agents/a1/memory/structured-consolidation", "{\"ownerKey\":\"user:1\"}")
        }) {
      assertThat(answer.status()).as(answer.body()).isEqualTo(409);
      assertThat(answer.json().get("message").asString()).contains("memstack.models.chat");
    }
    Answer card = api.get("/api/v1/agents/a1/memory/dream/morning-card?ownerKey=user:1");
    assertThat(card.status()).as(card.body()).isEqualTo(200);
    assertThat(card.json().get("items")).isEmpty();
  }
}
