package dev.memstack.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.client.DocSnippets;
import dev.memstack.client.ScriptedHost;
import dev.memstack.client.ScriptedHost.Reply;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class PlainSpringAiExampleTest {

  static final Path SOURCE =
      Path.of("src/test/java/dev/memstack/springai/PlainSpringAiExample.java");

  @Test
  void theDocumentedAdvisorWithoutBootRecallsAndHandsInTheTurn() {
    try (ScriptedHost host = ScriptedHost.start()) {
      host.on(
          "POST",
          "/api/v1/agents/support-bot/memory/context",
          Reply.json(200, "{\"context\":\"<memory-context>\\n- green tea\\n</memory-context>\"}"));
      host.on(
          "POST", "/api/v1/agents/support-bot/memory/turns", Reply.json(202, "{\"turnId\":\"t\"}"));
      ScriptedChatModel model = ScriptedChatModel.replying("Green tea.");

      String reply = PlainSpringAiExample.ask(host.url(), "a-token-of-twenty-chars", model);

      assertThat(reply).isEqualTo("Green tea.");
      assertThat(model.lastUserText()).contains("- green tea").endsWith("What tea do I like?");
      assertThat(host.received("POST", "/api/v1/agents/support-bot/memory/turns"))
          .as("close() handed the queued turn in")
          .singleElement()
          .satisfies(
              turn ->
                  assertThat(
                          JsonMapper.builder()
                              .build()
                              .readTree(turn.body())
                              .get("conversationId")
                              .stringValue())
                      .isEqualTo("c-2026-03-02"));
    }
  }

  @Test
  void theIntegrationGuideQuotesTheExample() {
    DocSnippets.assertQuoted("docs/integrating.md", SOURCE, "plain");
  }
}
