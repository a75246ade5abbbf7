package dev.memstack.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

class WorkspaceMemoryProviderTest {

  @TempDir Path dir;
  Fixture fx;

  @BeforeEach
  void open() {
    fx = Fixture.open(dir.resolve("builtin"));
  }

  @AfterEach
  void close() {
    fx.close();
  }

  @Nested
  @DisplayName("A new agent")
  class NewAgent {

    @Test
    @DisplayName("gets the four core files, enabled, in the system prompt in seed order")
    void getsTheFourCoreFilesInTheSystemPrompt() {
      String block = fx.provider.systemPromptBlock(AgentId.of("a1"));

      assertThat(block).startsWith("--- AGENTS.md ---\n# AGENTS.md");
      int agents = block.indexOf("--- AGENTS.md ---");
      int soul = block.indexOf("\n\n--- SOUL.md ---\n");
      int profile = block.indexOf("\n\n--- PROFILE.md ---\n");
      int memory = block.indexOf("\n\n--- MEMORY.md ---\n");
      assertThat(List.of(agents, soul, profile, memory)).doesNotContain(-1).isSorted();
      assertThat(fx.read("agents/a1/SOUL.md")).startsWith("# SOUL.md");
    }

    @Test
    @DisplayName("lists the four core files with sort orders 0 to 3")
    void listsTheFourCoreFiles() {
      JsonNode answer = fx.tool("a1", null, "list_workspace_memory_files", Map.of());

      assertThat(answer.path("count").asInt()).isEqualTo(4);
      List<String> names = new ArrayList<>();
      for (JsonNode file : answer.path("files")) {
        names.add(file.path("filename").asString());
        assertThat(file.path("enabled").asBoolean()).isTrue();
        assertThat(file.path("scope").asString()).isEqualTo("team");
        assertThat(file.path("fileSize").asLong()).isPositive();
      }
      assertThat(names).containsExactly("AGENTS.md", "SOUL.md", "PROFILE.md", "MEMORY.md");
      assertThat(answer.path("files").get(3).path("sortOrder").asInt()).isEqualTo(3);
    }

    @Test
    @DisplayName("keeps the system prompt block identical between writes")
    void keepsTheBlockStableBetweenWrites() {
      AgentId agent = AgentId.of("a1");
      String first = fx.provider.systemPromptBlock(agent);
      fx.provider.syncTurn(fx.turn("a1", "user:1", "t1", "hello there", "hi"));

      assertThat(fx.provider.systemPromptBlock(agent)).isSameAs(first);
    }
  }

  @Nested
  @DisplayName("Turns and daily notes")
  class Turns {

    @Test
    @DisplayName("a preview recalls what a normal recall does and leaves every file as it was")
    void aPreviewAnswersTheSameAndWritesNothing() {
      fx.provider.syncTurn(
          fx.turn("a1", "user:1", "t-1", "My cat is called Biscuit the Magnificent.", "Noted."));
      List<RecallItem> normal = fx.recall("a1", "user:1", "Biscuit", 5);
      Map<String, String> before = fx.tree();

      for (int i = 0; i < 20; i++) {
        assertThat(fx.recall("a1", "user:1", "Biscuit", 5, true)).isEqualTo(normal);
      }

      assertThat(normal).anyMatch(item -> item.text().contains("Biscuit the Magnificent"));
      assertThat(fx.tree()).isEqualTo(before);
      assertThat(fx.recall("a1", "user:1", "Biscuit", 5)).isEqualTo(normal);
    }

    @Test
    @DisplayName("a turn of user:1 lands in user:1's daily note and is recalled only for user:1")
    void aTurnLandsInTheOwnersDailyNote() {
      fx.provider.syncTurn(
          fx.turn(
              "a1",
              "user:1",
              "t-1",
              "Please remember my cat is called Biscuit the Magnificent.",
              "I will remember Biscuit."));

      String note = fx.read("agents/a1/owners/user%3A1/memory/2026-04-01.md");
      assertThat(note)
          .startsWith("# 2026-04-01\n")
          .contains("<!-- turn:t-1 -->")
          .contains("**User:** Please remember my cat is called Biscuit the Magnificent.")
          .contains("**Assistant:** I will remember Biscuit.")
          .contains("### 09:30 · web · conversation c1");

      List<RecallItem> mine = fx.recall("a1", "user:1", "Biscuit", 5);
      assertThat(mine)
          .anySatisfy(
              item -> {
                assertThat(item.text()).contains("Biscuit the Magnificent");
                assertThat(item.scope()).isEqualTo(Scope.PERSONAL);
                assertThat(item.owner()).isEqualTo(OwnerKey.of("user:1"));
                assertThat(item.metadata())
                    .containsEntry("file", "memory/2026-04-01.md")
                    .containsEntry("line", "4");
              });
      assertThat(fx.recall("a1", "user:2", "Biscuit", 5))
          .noneMatch(item -> item.text().contains("Biscuit"));
      assertThat(fx.recall("a1", null, "Biscuit", 5))
          .noneMatch(item -> item.text().contains("Biscuit"));

      JsonNode hits =
          fx.tool("a1", "user:1", "search_workspace_memory", Map.of("query", "Biscuit"));
      assertThat(hits.path("count").asInt()).isPositive();
      assertThat(hits.path("hits").get(0).path("filename").asString())
          .isEqualTo("memory/2026-04-01.md");
      assertThat(hits.path("hits").get(0).path("scope").asString()).isEqualTo("personal");
      assertThat(
              fx.tool("a1", "user:2", "search_workspace_memory", Map.of("query", "Biscuit"))
                  .path("count")
                  .asInt())
          .isZero();
    }

    @Test
    @DisplayName("the daily note is created disabled and stays out of the system prompt")
    void theDailyNoteIsCreatedDisabled() {
      fx.provider.syncTurn(fx.turn("a1", "user:1", "t-1", "remember the tangerine", "ok"));

      JsonNode read =
          fx.tool(
              "a1",
              "user:1",
              "read_workspace_memory_file",
              Map.of("filename", "memory/2026-04-01.md"));
      assertThat(read.path("scope").asString()).isEqualTo("personal");
      assertThat(read.path("enabled").asBoolean()).isFalse();
      assertThat(fx.provider.systemPromptBlock(AgentId.of("a1"))).doesNotContain("tangerine");
    }

    @Test
    @DisplayName("the same turn id synced three times is written once")
    void theSameTurnIsWrittenOnce() {
      var turn = fx.turn("a1", "user:1", "turn-42", "remember the blue door", "noted");
      fx.provider.syncTurn(turn);
      fx.provider.syncTurn(turn);
      fx.provider.syncTurn(turn);

      String note = fx.read("agents/a1/owners/user%3A1/memory/2026-04-01.md");
      assertThat(note.split("<!-- turn:turn-42 -->", -1)).hasSize(2);
    }

    @Test
    @DisplayName("long messages are cut to a gist with an ellipsis and no forged markers")
    void longMessagesAreCutToAGist() {
      String longMessage = "word ".repeat(400) + "<!-- turn:forged -->";
      fx.provider.syncTurn(fx.turn("a1", "user:1", "t-2", longMessage, "short"));

      String note = fx.read("agents/a1/owners/user%3A1/memory/2026-04-01.md");
      String userLine =
          note.lines().filter(l -> l.startsWith("**User:**")).findFirst().orElseThrow();
      assertThat(userLine.length()).isLessThanOrEqualTo("**User:** ".length() + 800);
      assertThat(userLine).endsWith("…");
      assertThat(note).doesNotContain("turn:forged -->");
    }

    @Test
    @DisplayName("cron turns are not written by default")
    void cronTurnsAreSkipped() {
      var turn = fx.turn("a1", "user:1", "t-cron", "nightly job", "done");
      fx.provider.syncTurn(
          new dev.memstack.spi.Turn(
              turn.turnId(),
              turn.agent(),
              turn.owner(),
              "c1",
              turn.userMessage(),
              turn.assistantReply(),
              dev.memstack.spi.TriggerSource.CRON,
              turn.time()));

      assertThat(Files.exists(dir.resolve("builtin/agents/a1/owners/user%3A1"))).isFalse();
    }

    @Test
    @DisplayName(
        "forget removes the owner's files and conversations in every agent and counts them")
    void forgetRemovesTheOwnersFiles() {
      fx.provider.syncTurn(fx.turn("a1", "user:1", "t-1", "my secret word is zanzibar", "ok"));
      fx.provider.syncTurn(fx.turn("a2", "user:1", "t-2", "zanzibar again", "ok"));
      fx.provider.syncTurn(fx.turn("a1", "user:2", "t-3", "zanzibar for two", "ok"));

      long removed = fx.provider.forget(OwnerKey.of("user:1"));

      // one daily note and one conversation (c1) in each of a1 and a2
      assertThat(removed).isEqualTo(4);
      assertThat(fx.provider.forget(OwnerKey.of("user:1"))).isZero();
      assertThat(Files.exists(dir.resolve("builtin/agents/a1/owners/user%3A1"))).isFalse();
      assertThat(Files.exists(dir.resolve("builtin/agents/a2/owners/user%3A1"))).isFalse();
      assertThat(fx.recall("a1", "user:1", "zanzibar", 5)).isEmpty();
      assertThat(fx.recall("a2", "user:1", "zanzibar", 5)).isEmpty();
      assertThat(fx.recall("a1", "user:2", "zanzibar", 5)).hasSize(1);
      assertThat(fx.read("agents/a1/AGENTS.md")).startsWith("# AGENTS.md");
    }
  }

  @Nested
  @DisplayName("Keyword search")
  class Search {

    @Test
    @DisplayName("finds a Chinese phrase in MEMORY.md by a two-character query")
    void findsChineseByTwoCharacters() {
      fx.tool(
          "a1",
          null,
          "write_workspace_memory_file",
          Map.of("filename", "MEMORY.md", "content", "# 记忆\n\n## 偏好\n- 用户喜欢喝手冲咖啡，不加糖。\n"));

      JsonNode answer = fx.tool("a1", null, "search_workspace_memory", Map.of("query", "咖啡"));

      assertThat(answer.path("count").asInt()).isEqualTo(1);
      JsonNode hit = answer.path("hits").get(0);
      assertThat(hit.path("filename").asString()).isEqualTo("MEMORY.md");
      assertThat(hit.path("line").asInt()).isEqualTo(4);
      assertThat(hit.path("snippet").asString()).contains("手冲咖啡");
      assertThat(fx.provider.systemPromptBlock(AgentId.of("a1"))).contains("手冲咖啡");
      assertThat(fx.recall("a1", "user:9", "咖啡", 5))
          .as("an enabled file is in the system prompt already, so recall leaves it out")
          .noneMatch(item -> item.text().contains("手冲咖啡"));
      assertThat(
              fx.tool("a1", null, "search_workspace_memory", Map.of("query", "啡不")).path("count"))
          .as("a window that is not in the text")
          .hasToString("0");
    }

    @Test
    @DisplayName("weighs core files above daily notes and gives an 80-character snippet")
    void weighsCoreFilesAboveDailyNotes() {
      String padding = "filler text that pads the line out well beyond eighty characters ";
      fx.tool(
          "a1",
          null,
          "write_workspace_memory_file",
          Map.of(
              "filename",
              "memory/2026-03-01.md",
              "content",
              "# 2026-03-01\n\n" + padding + "the pelican project " + padding + "\n"));
      fx.tool(
          "a1",
          null,
          "write_workspace_memory_file",
          Map.of(
              "filename",
              "MEMORY.md",
              "content",
              "# MEMORY\n\n" + padding + "the pelican project " + padding + "\n"));

      JsonNode hits = fx.tool("a1", null, "search_workspace_memory", Map.of("query", "pelican"));

      assertThat(hits.path("hits").get(0).path("filename").asString()).isEqualTo("MEMORY.md");
      assertThat(hits.path("hits").get(1).path("filename").asString())
          .isEqualTo("memory/2026-03-01.md");
      assertThat(hits.path("hits").get(0).path("score").asDouble())
          .isGreaterThan(hits.path("hits").get(1).path("score").asDouble());
      String snippet = hits.path("hits").get(0).path("snippet").asString();
      assertThat(snippet).contains("pelican");
      assertThat(snippet.replace("…", "")).hasSize(80);
    }

    @Test
    @DisplayName("the owner's enabled personal files are their owner prompt, whole, not recall")
    void enabledPersonalFilesAreTheOwnerPrompt() {
      fx.tool(
          "a1",
          "user:1",
          "write_workspace_memory_file",
          Map.of("filename", "PROFILE.md", "content", "# Profile\n\n- Name: Ada\n"));

      assertThat(fx.provider.capabilities()).contains(dev.memstack.spi.Capability.OWNER_PROMPT);
      assertThat(fx.provider.ownerPromptBlock(AgentId.of("a1"), OwnerKey.of("user:1")))
          .isEqualTo("--- PROFILE.md (personal) ---\n# Profile\n\n- Name: Ada");
      assertThat(fx.recall("a1", "user:1", "what is my name Ada", 5))
          .noneMatch(item -> item.text().contains("Ada"));
      assertThat(fx.provider.ownerPromptBlock(AgentId.of("a1"), OwnerKey.of("user:2"))).isEmpty();
      assertThat(fx.recall("a1", "user:2", "Ada", 5))
          .noneMatch(item -> item.text().contains("Ada"));
      assertThat(fx.provider.systemPromptBlock(AgentId.of("a1"))).doesNotContain("Ada");

      fx.tool(
          "a1",
          "user:1",
          "write_workspace_memory_file",
          Map.of("filename", "PROFILE.md", "content", "# Profile\n\n- Name: Ada Lovelace\n"));
      assertThat(fx.provider.ownerPromptBlock(AgentId.of("a1"), OwnerKey.of("user:1")))
          .as("the per-owner cache is invalidated by the write")
          .contains("Ada Lovelace");
    }

    @Test
    @DisplayName("recall carries no template line and no file a prompt already carries")
    void recallCarriesNoTemplateLine() {
      fx.provider.syncTurn(
          fx.turn(
              "a1",
              "user:1",
              "t1",
              "I adopted a retired greyhound named Biscuit last spring",
              "Lovely!"));

      List<RecallItem> items = fx.recall("a1", "user:1", "what kind of dog do I have?", 10);

      assertThat(items).isNotEmpty();
      assertThat(items).allMatch(item -> item.text().contains("Biscuit"));
      assertThat(items)
          .noneMatch(
              item ->
                  item.text().contains("SOUL.md")
                      || item.text().contains("AGENTS.md")
                      || item.text().contains("MEMORY.md"));
      assertThat(items).allMatch(item -> item.score() > 0 && item.score() < 1);
      assertThat(items.get(0).createdAt())
          .as("a daily-note entry is dated by its own time, not the note file's")
          .isEqualTo(fx.clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MINUTES));
      assertThat(items.get(0).text()).doesNotContain("**Assistant:** (empty)");
    }
  }

  @Nested
  @DisplayName("Tools")
  class Tools {

    @Test
    @DisplayName("write answers created, then overwritten, with bytes written")
    void writeAnswersCreatedThenOverwritten() {
      Map<String, String> args = Map.of("filename", "notes/ideas.md", "content", "héllo");
      JsonNode first = fx.tool("a1", null, "write_workspace_memory_file", args);
      JsonNode second = fx.tool("a1", null, "write_workspace_memory_file", args);

      assertThat(first.path("created").asBoolean()).isTrue();
      assertThat(first.path("overwritten").asBoolean()).isFalse();
      assertThat(first.path("enabled").asBoolean()).isFalse();
      assertThat(first.path("bytesWritten").asInt()).isEqualTo(6);
      assertThat(first.path("message").asString()).isEqualTo("workspace memory file created");
      assertThat(second.path("created").asBoolean()).isFalse();
      assertThat(second.path("overwritten").asBoolean()).isTrue();
      assertThat(fx.read("agents/a1/notes/ideas.md")).isEqualTo("héllo");
    }

    @Test
    @DisplayName("edit replaces one exact passage and answers the new size")
    void editReplacesOnePassage() {
      fx.tool(
          "a1",
          null,
          "write_workspace_memory_file",
          Map.of("filename", "KNOWLEDGE.md", "content", "alpha beta gamma beta"));

      JsonNode one =
          fx.tool(
              "a1",
              null,
              "edit_workspace_memory_file",
              Map.of("filename", "KNOWLEDGE.md", "oldText", "alpha", "newText", "ALPHA"));
      JsonNode all =
          fx.tool(
              "a1",
              null,
              "edit_workspace_memory_file",
              Map.of(
                  "filename",
                  "KNOWLEDGE.md",
                  "oldText",
                  "beta",
                  "newText",
                  "b",
                  "replaceAll",
                  true));

      assertThat(one.path("replacements").asInt()).isEqualTo(1);
      assertThat(all.path("replacements").asInt()).isEqualTo(2);
      assertThat(all.path("fileSizeAfter").asInt()).isEqualTo("ALPHA b gamma b".length());
      assertThat(fx.read("agents/a1/KNOWLEDGE.md")).isEqualTo("ALPHA b gamma b");
    }

    @Test
    @DisplayName("an edit without a match is a conflict that changes nothing")
    void anEditWithoutAMatchIsAConflict() {
      fx.provider.systemPromptBlock(AgentId.of("a1"));
      Map<String, String> before = fx.tree();

      ToolException error =
          fx.toolError(
              "a1",
              null,
              "edit_workspace_memory_file",
              Map.of("filename", "MEMORY.md", "oldText", "no such text", "newText", "x"));

      assertThat(error.kind()).isEqualTo(ToolException.Kind.CONFLICT);
      assertThat(error).hasMessageContaining("oldText was not found");
      assertThat(fx.tree()).isEqualTo(before);
    }

    @Test
    @DisplayName("an ambiguous edit without replaceAll is a conflict")
    void anAmbiguousEditIsAConflict() {
      fx.tool(
          "a1",
          null,
          "write_workspace_memory_file",
          Map.of("filename", "KNOWLEDGE.md", "content", "x x"));

      assertThat(
              fx.toolError(
                      "a1",
                      null,
                      "edit_workspace_memory_file",
                      Map.of("filename", "KNOWLEDGE.md", "oldText", "x", "newText", "y"))
                  .kind())
          .isEqualTo(ToolException.Kind.CONFLICT);
      assertThat(fx.read("agents/a1/KNOWLEDGE.md")).isEqualTo("x x");
    }

    @Test
    @DisplayName("PROFILE.md and MEMORY.md go to the owner's personal copy by default")
    void personalKindsGoToThePersonalCopy() {
      JsonNode profile =
          fx.tool(
              "a1",
              "user:1",
              "write_workspace_memory_file",
              Map.of("filename", "PROFILE.md", "content", "# Me\n"));
      JsonNode shared =
          fx.tool(
              "a1",
              "user:1",
              "write_workspace_memory_file",
              Map.of("filename", "SOUL.md", "content", "# Soul\n"));

      assertThat(profile.path("scope").asString()).isEqualTo("personal");
      assertThat(profile.path("enabled").asBoolean()).isTrue();
      assertThat(shared.path("scope").asString()).isEqualTo("team");
      assertThat(fx.read("agents/a1/owners/user%3A1/PROFILE.md")).isEqualTo("# Me\n");
      assertThat(fx.read("agents/a1/PROFILE.md")).startsWith("# PROFILE.md");
      JsonNode list = fx.tool("a1", "user:1", "list_workspace_memory_files", Map.of());
      assertThat(list.path("count").asInt()).isEqualTo(5);
      assertThat(fx.tool("a1", "user:2", "list_workspace_memory_files", Map.of()).path("count"))
          .hasToString("4");
    }

    @Test
    @DisplayName("an ownerKey argument that differs from the call's owner is forbidden")
    void aDifferentOwnerKeyIsForbidden() {
      assertThat(
              fx.toolError(
                      "a1",
                      "user:1",
                      "read_workspace_memory_file",
                      Map.of("filename", "PROFILE.md", "ownerKey", "user:2"))
                  .kind())
          .isEqualTo(ToolException.Kind.FORBIDDEN);
    }

    @Test
    @DisplayName("bad arguments are refused naming the argument")
    void badArgumentsNameTheArgument() {
      assertThat(fx.toolError("a1", null, "read_workspace_memory_file", Map.of()))
          .hasMessage("filename is required");
      assertThat(
              fx.toolError(
                  "a1", null, "read_workspace_memory_file", Map.of("filename", "A.md", "x", 1)))
          .hasMessageStartingWith("x is not an argument of this tool");
      assertThat(
              fx.toolError(
                  "a1",
                  null,
                  "read_workspace_memory_file",
                  Map.of("filename", "A.md", "scope", "x")))
          .hasMessageStartingWith("scope must be one of personal, team, global");
      assertThat(
              fx.toolError(
                  "a1",
                  null,
                  "read_workspace_memory_file",
                  Map.of("filename", "PROFILE.md", "scope", "personal")))
          .hasMessage("scope 'personal' needs an ownerKey");
      assertThat(
              fx.toolError(
                  "a1", null, "search_workspace_memory", Map.of("query", "x", "limit", 500)))
          .hasMessageStartingWith("limit must be between 1 and 50");
      assertThat(fx.toolError("a1", null, "update_workspace_file_meta", Map.of("filename", "A.md")))
          .hasMessage("enabled or sortOrder is required");
      assertThat(fx.toolError("a1", null, "no_such_tool", Map.of()).kind())
          .isEqualTo(ToolException.Kind.NOT_FOUND);
    }

    @Test
    @DisplayName("text after the arguments and a lone surrogate are refused, nothing written")
    void trailingTextAndLoneSurrogatesAreRefused() {
      String write = "write_workspace_memory_file";
      ToolCall trailing =
          new ToolCall(
              AgentId.of("a1"), null, write, "{\"filename\":\"A.md\",\"content\":\"x\"} {}");
      assertThatThrownBy(() -> fx.provider.callTool(trailing))
          .isInstanceOfSatisfying(
              ToolException.class,
              e -> {
                assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
                assertThat(e.field()).isNull();
              })
          .hasMessageStartingWith("arguments are not valid JSON");
      ToolException surrogate =
          fx.toolError("a1", null, write, Map.of("filename", "A.md", "content", "x\ud800y"));
      assertThat(surrogate.field()).isEqualTo("content");
      assertThat(surrogate).hasMessage("content is not valid Unicode: a lone surrogate at index 1");
      assertThat(fx.tool("a1", null, "list_workspace_memory_files", Map.of()).path("files"))
          .noneMatch(file -> file.path("filename").asString().equals("A.md"));
    }

    @Test
    @DisplayName("offers its workspace, job and lifecycle tools with object schemas")
    void offersItsTools() {
      List<ToolSpec> tools = fx.provider.tools();
      assertThat(tools)
          .extracting(ToolSpec::name)
          .containsExactly(
              "list_workspace_memory_files",
              "read_workspace_memory_file",
              "write_workspace_memory_file",
              "edit_workspace_memory_file",
              "search_workspace_memory",
              "update_workspace_file_meta",
              "export_workspace_memory",
              "import_workspace_memory",
              "summarize_conversation",
              "run_emergence",
              "dreaming_status",
              "dream_reports",
              "dream_morning_card",
              "resolve_card_item",
              "run_focused_dream",
              "run_structured_consolidation",
              "list_memories",
              "count_memories",
              "list_owners",
              "get_memory",
              "update_memory_status",
              "edit_memory",
              "delete_memory",
              "memory_history");
      for (ToolSpec tool : tools) {
        JsonNode schema = readJson(tool.inputSchema());
        assertThat(schema.path("type").asString()).isEqualTo("object");
        assertThat(schema.path("properties").has("ownerKey")).isTrue();
      }
    }

    @Test
    @DisplayName("enabling a team file puts it in the system prompt and tells the host")
    void enablingATeamFileTellsTheHost() {
      AgentId agent = AgentId.of("a1");
      fx.tool(
          "a1",
          null,
          "write_workspace_memory_file",
          Map.of("filename", "KNOWLEDGE.md", "content", "The office cat is Mochi."));
      String before = fx.provider.systemPromptBlock(agent);
      fx.context.clearSystemPromptChanges();

      JsonNode answer =
          fx.tool(
              "a1",
              null,
              "update_workspace_file_meta",
              Map.of("filename", "KNOWLEDGE.md", "enabled", true, "sortOrder", 1));

      assertThat(answer.path("enabled").asBoolean()).isTrue();
      assertThat(before).doesNotContain("Mochi");
      assertThat(fx.context.systemPromptChanges()).containsExactly(agent);
      String after = fx.provider.systemPromptBlock(agent);
      assertThat(after).contains("--- KNOWLEDGE.md ---\nThe office cat is Mochi.");
      assertThat(after.indexOf("KNOWLEDGE.md")).isLessThan(after.indexOf("--- PROFILE.md"));
    }

    @Test
    @DisplayName("personal writes do not touch the system prompt")
    void personalWritesDoNotTouchTheSystemPrompt() {
      fx.provider.systemPromptBlock(AgentId.of("a1"));
      fx.context.clearSystemPromptChanges();

      fx.tool(
          "a1",
          "user:1",
          "write_workspace_memory_file",
          Map.of("filename", "MEMORY.md", "content", "# mine\n"));
      fx.provider.syncTurn(fx.turn("a1", "user:1", "t", "hello", "hi"));

      assertThat(fx.context.systemPromptChanges()).isEmpty();
    }

    @Test
    @DisplayName("global files reach every agent's system prompt once enabled")
    void globalFilesReachEveryAgent() {
      fx.tool(
          "a1",
          null,
          "write_workspace_memory_file",
          Map.of("scope", "global", "filename", "facts.md", "content", "Water boils at 100 C."));
      fx.tool(
          "a1",
          null,
          "update_workspace_file_meta",
          Map.of("scope", "global", "filename", "facts.md", "enabled", true));

      assertThat(fx.provider.systemPromptBlock(AgentId.of("a2")))
          .contains("--- global/facts.md ---\nWater boils at 100 C.");
      assertThat(fx.context.systemPromptChanges()).contains((AgentId) null);
      assertThat(fx.read("global/facts.md")).isEqualTo("Water boils at 100 C.");
    }
  }

  @Nested
  @DisplayName("Safety")
  class Safety {

    @Test
    @DisplayName("writes to unsafe names answer INVALID_ARGUMENT and change nothing on disk")
    void unsafeNamesChangeNothing() throws Exception {
      fx.provider.systemPromptBlock(AgentId.of("a1"));
      fx.provider.syncTurn(fx.turn("a1", "user:1", "t", "seed", "ok"));
      Path outside = dir.resolve("outside");
      Files.createDirectories(outside);
      Files.createSymbolicLink(dir.resolve("builtin/agents/a1/escape"), outside);
      Map<String, String> before = fx.tree();

      for (String name :
          List.of(
              "../x.md",
              "/etc/x.md",
              "x.txt",
              "a/%2e%2e/b.md",
              "a/%2E%2E/%2e%2e/b.md",
              "..\\x.md",
              "a\\b.md",
              "x\u0000.md",
              "a/\nb.md",
              "C:/x.md",
              "./x.md",
              "a/../../x.md",
              ".hidden.md",
              ".workspace.json",
              "a//b.md",
              "x.MD",
              "owners/user%3A2/MEMORY.md",
              "owners/user:2/MEMORY.md",
              "escape/x.md",
              "n".repeat(300) + ".md",
              "")) {
        for (String owner : new String[] {null, "user:1"}) {
          ToolException error =
              fx.toolError(
                  "a1",
                  owner,
                  "write_workspace_memory_file",
                  Map.of("filename", name, "content", "pwned"));
          assertThat(error.kind())
              .as("kind for %s", name)
              .isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
          assertThat(error.getMessage()).as("message for %s", name).startsWith("filename ");
        }
        fx.toolError(
            "a1",
            null,
            "edit_workspace_memory_file",
            Map.of("filename", name, "oldText", "a", "newText", "b"));
        fx.toolError("a1", null, "read_workspace_memory_file", Map.of("filename", name));
      }

      assertThat(fx.tree()).isEqualTo(before);
      assertThat(outside).isEmptyDirectory();
      assertThat(dir.resolve("x.md")).doesNotExist();
    }

    @Test
    @DisplayName("a refused call on a never-used agent does not even seed it")
    void aRefusedCallDoesNotSeed() {
      Map<String, String> before = fx.tree();

      fx.toolError(
          "fresh",
          null,
          "write_workspace_memory_file",
          Map.of("filename", "../x.md", "content", "x"));

      assertThat(fx.tree()).isEqualTo(before);
    }

    @Test
    @DisplayName("PROFILE.md is cut at the last ## heading that fits, with a marker")
    void profileIsCutAtAHeading() {
      String section = "## Section %d\n" + "- a fact worth keeping\n".repeat(40);
      StringBuilder content = new StringBuilder("# Profile\n\n");
      for (int i = 1; i <= 6; i++) {
        content.append(String.format(section, i)).append('\n');
      }
      assertThat(content.length()).isGreaterThan(4000);

      JsonNode answer =
          fx.tool(
              "a1",
              null,
              "write_workspace_memory_file",
              Map.of("filename", "PROFILE.md", "content", content.toString()));

      String stored = fx.read("agents/a1/PROFILE.md");
      assertThat(answer.path("truncated").asBoolean()).isTrue();
      assertThat(stored.length()).isLessThanOrEqualTo(4000);
      assertThat(stored).contains("## Section 3").doesNotContain("## Section 5");
      assertThat(stored)
          .endsWith(
              "_[PROFILE.md was cut to its 4000-character cap; later sections were left out]_\n");
      String beforeMarker = stored.substring(0, stored.indexOf("\n\n_[PROFILE.md"));
      assertThat(content.toString()).startsWith(beforeMarker);
      assertThat(content.toString().substring(beforeMarker.length()).stripLeading())
          .startsWith("## Section");
    }

    @Test
    @DisplayName("other files past the maximum are refused")
    void otherFilesPastTheMaximumAreRefused() {
      ToolException error =
          fx.toolError(
              "a1",
              null,
              "write_workspace_memory_file",
              Map.of("filename", "big.md", "content", "x".repeat(1_048_577)));

      assertThat(error.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
      assertThat(error).hasMessageContaining("1048576 bytes");
      assertThat(dir.resolve("builtin/agents/a1/big.md")).doesNotExist();
    }

    @Test
    @DisplayName("a cap of 0 means no cap")
    void aCapOfZeroMeansNoCap() {
      fx.close();
      fx = Fixture.open(dir.resolve("nocap"), Map.of("memory-md-max-chars", "0"));
      String content = "## A\n" + "y".repeat(20_000);

      fx.tool(
          "a1",
          null,
          "write_workspace_memory_file",
          Map.of("filename", "MEMORY.md", "content", content));

      assertThat(fx.read("agents/a1/MEMORY.md")).isEqualTo(content);
    }
  }

  @Nested
  @DisplayName("Configuration")
  class Configuration {

    @Test
    @DisplayName("with per-owner off, turns go to the team's daily note")
    void perOwnerOffKeepsEverythingInTeamScope() {
      fx.close();
      fx = Fixture.open(dir.resolve("shared"), Map.of("per-owner", "false"));

      fx.provider.syncTurn(fx.turn("a1", "user:1", "t1", "the kumquat harvest", "ok"));

      assertThat(fx.read("agents/a1/memory/2026-04-01.md")).contains("kumquat");
      assertThat(fx.recall("a1", "user:2", "kumquat", 5))
          .anyMatch(item -> item.scope() == Scope.TEAM && item.text().contains("kumquat"));
      assertThat(fx.provider.capabilities()).doesNotContain(Capability.PERSONAL_MEMORY);
      assertThat(
              fx.toolError(
                  "a1",
                  "user:1",
                  "read_workspace_memory_file",
                  Map.of("filename", "MEMORY.md", "scope", "personal")))
          .hasMessageContaining("per-owner memory is off");
    }

    @Test
    @DisplayName("an unknown or invalid key stops the provider naming the key")
    void invalidConfigNamesTheKey() {
      assertThatThrownBy(() -> Fixture.open(dir.resolve("bad1"), Map.of("per-owners", "true")))
          .hasMessageStartingWith("memstack.providers.builtin.config.per-owners: is not a setting");
      assertThatThrownBy(() -> Fixture.open(dir.resolve("bad2"), Map.of("profile-max-chars", "-1")))
          .hasMessageStartingWith("memstack.providers.builtin.config.profile-max-chars");
    }

    @Test
    @DisplayName("past the budget the least recently updated files are left out, with a line")
    void pastTheBudgetOldFilesAreLeftOut() {
      fx.close();
      fx = Fixture.open(dir.resolve("budget"), Map.of("system-prompt-max-chars", "1500"));
      AgentId agent = AgentId.of("a1");
      fx.provider.systemPromptBlock(agent);
      fx.clock.advance(Duration.ofMinutes(5));
      fx.tool(
          "a1",
          null,
          "write_workspace_memory_file",
          Map.of("filename", "MEMORY.md", "content", "# MEMORY\n\nremember the lighthouse"));

      String block = fx.provider.systemPromptBlock(agent);

      assertThat(block.length()).isLessThanOrEqualTo(1500);
      assertThat(block).contains("--- MEMORY.md ---\n# MEMORY\n\nremember the lighthouse");
      assertThat(block.lines().reduce((a, b) -> b).orElseThrow())
          .startsWith("[memory: ")
          .contains("left out to stay within 1500 characters")
          .contains("AGENTS.md");
    }
  }

  private static JsonNode readJson(String text) {
    try {
      return Fixture.JSON.readTree(text);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
