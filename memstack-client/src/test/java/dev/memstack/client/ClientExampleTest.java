package dev.memstack.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.client.ScriptedHost.Reply;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class ClientExampleTest {

  static final Path SOURCE = Path.of("src/test/java/dev/memstack/client/ClientExample.java");

  @Test
  void theDocumentedLoopPutsMemoryIntoThePromptAndHandsInTheTurn() {
    try (ScriptedHost host = ScriptedHost.start()) {
      host.on(
          "POST",
          "/api/v1/agents/support-bot/memory/context",
          Reply.json(
              200,
              "{\"systemPrompt\":\"shared\",\"ownerPrompt\":\"own\",\"context\":"
                  + "\"<memory-context>\\n- green tea\\n</memory-context>\"}"));
      host.on(
          "POST", "/api/v1/agents/support-bot/memory/turns", Reply.json(202, "{\"turnId\":\"t\"}"));
      MemstackClient memstack = ClientExample.connect(host.url(), "a-token-of-twenty-chars");
      List<String> prompts = new ArrayList<>();

      String reply =
          ClientExample.reply(
              memstack,
              (system, user) -> {
                prompts.add(system);
                prompts.add(user);
                return "Green tea.";
              },
              "user:1",
              "c1",
              "What tea do I like?");

      assertThat(reply).isEqualTo("Green tea.");
      assertThat(prompts)
          .containsExactly(
              "shared\n\nown",
              "<memory-context>\n- green tea\n</memory-context>\n\nWhat tea do I like?");
      var turn =
          JsonMapper.builder()
              .build()
              .readTree(
                  host.received("POST", "/api/v1/agents/support-bot/memory/turns").get(0).body());
      assertThat(turn.get("assistantReply").stringValue()).isEqualTo("Green tea.");
      assertThat(turn.get("userMessage").stringValue()).isEqualTo("What tea do I like?");
    }
  }

  @Test
  void theDocumentedToolCallsAndErasureRun() {
    try (ScriptedHost host = ScriptedHost.start()) {
      host.on(
          "GET",
          "/api/v1/agents/support-bot/tools",
          Reply.json(
              200,
              "{\"tools\":[{\"provider\":\"builtin\",\"name\":\"read_workspace_memory_file\","
                  + "\"description\":\"Read.\",\"inputSchema\":{}}]}"));
      host.on(
          "POST",
          "/api/v1/agents/support-bot/tools/builtin/read_workspace_memory_file",
          Reply.json(200, "{\"content\":\"- likes green tea\"}"));
      host.on(
          "DELETE",
          "/api/v1/owners/user:42/memory",
          Reply.json(
              403, "{\"error\":\"forbidden\",\"message\":\"this token may act for api:* only\"}"));

      List<String> log =
          ClientExample.toolsAndErasure(ClientExample.connect(host.url(), null), "user:42");

      assertThat(log)
          .containsExactly(
              "builtin/read_workspace_memory_file",
              "MEMORY.md: - likes green tea",
              "403 forbidden: this token may act for api:* only");
      assertThat(host.received().get(1).query()).isEqualTo("ownerKey=user%3A42");
    }
  }

  @Test
  void theIntegrationGuideQuotesTheExample() {
    DocSnippets.assertQuoted("docs/integrating.md", SOURCE, "client");
    DocSnippets.assertQuoted("docs/integrating.md", SOURCE, "loop");
    DocSnippets.assertQuoted("docs/integrating.md", SOURCE, "more");
  }
}
