package dev.memstack.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The memory-admin tools of the builtin provider: the bullets of PROFILE.md and MEMORY.md and the
 * daily-note entries one by one, with status, optimistic locking, history and forgetting.
 */
@DisplayName("builtin memories one by one")
class MemoryAdminToolsTest {

  static final String ALICE = "user:alice";
  static final String BOB = "user:bob";
  static final String ALICE_DIR = "agents/a1/owners/user%3Aalice";

  @TempDir Path dir;
  Fixture fx;

  @BeforeEach
  void open() {
    fx = Fixture.open(dir.resolve("builtin"));
    fx.tool(
        "a1",
        ALICE,
        "write_workspace_memory_file",
        Map.of(
            "scope",
            "personal",
            "filename",
            "MEMORY.md",
            "content",
            "# MEMORY.md\n\n## Projects\n- The harbour app ships in May.\n"
                + "- Alice owns the ferry timetable.\n\n## Decisions\n- We use PostgreSQL.\n"));
    fx.tool(
        "a1",
        ALICE,
        "write_workspace_memory_file",
        Map.of(
            "scope",
            "personal",
            "filename",
            "PROFILE.md",
            "content",
            "# Profile\n\n## Basics\n- Name: Alice\n- Role: skipper\n"));
    fx.tool(
        "a1",
        null,
        "edit_workspace_memory_file",
        Map.of(
            "scope",
            "team",
            "filename",
            "MEMORY.md",
            "oldText",
            "## Decisions",
            "newText",
            "- The office is in Leith.\n\n## Decisions"));
    fx.clock.advance(Duration.ofMinutes(5));
  }

  @AfterEach
  void close() {
    fx.close();
  }

  JsonNode call(String owner, String tool, Map<String, ?> arguments) {
    return fx.tool("a1", owner, tool, arguments);
  }

  JsonNode call(String owner, Set<Scope> writable, String actor, String tool, Map<String, ?> args) {
    return Fixture.JSON.readTree(
        fx.provider.callTool(
            new ToolCall(
                AgentId.of("a1"),
                owner == null ? null : OwnerKey.of(owner),
                tool,
                Fixture.json(args),
                writable,
                actor)));
  }

  ToolException.Kind refused(String owner, String tool, Map<String, ?> arguments) {
    return fx.toolError("a1", owner, tool, arguments).kind();
  }

  JsonNode one(String owner, String text) {
    JsonNode items = call(owner, "list_memories", Map.of("text", text)).get("items");
    assertThat(items).as("memories of %s with %s", owner, text).hasSize(1);
    return items.get(0);
  }

  String aliceFile(String name) {
    return fx.read(ALICE_DIR + "/" + name);
  }

  /** Every history and archive file of alice's bucket, joined. */
  String aliceHistoryFiles() {
    Path history = fx.dataDir.resolve("agents/a1/owners/user%3Aalice/history");
    if (!Files.isDirectory(history)) {
      return "";
    }
    try (Stream<Path> files = Files.list(history)) {
      StringBuilder all = new StringBuilder();
      for (Path file : files.toList()) {
        all.append(Files.readString(file));
      }
      return all.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  @DisplayName("lists the agent's owners with their memories; counts every owner's with allOwners")
  void listsOwnersAndCountsEveryOwner() {
    fx.tool(
        "a1",
        "api:7",
        "write_workspace_memory_file",
        Map.of("scope", "personal", "filename", "MEMORY.md", "content", "# M\n\n- Seven.\n"));
    fx.tool(
        "a2",
        "user:zed",
        "write_workspace_memory_file",
        Map.of("scope", "personal", "filename", "MEMORY.md", "content", "# M\n\n- Elsewhere.\n"));

    JsonNode all = call(null, "list_owners", Map.of());
    assertThat(all.get("total").asInt()).isEqualTo(2);
    assertThat(all.get("owners").toString())
        .isEqualTo(
            "[{\"ownerKey\":\"api:7\",\"count\":1},{\"ownerKey\":\"user:alice\",\"count\":5}]");
    assertThat(call(null, "list_owners", Map.of("offset", 1, "limit", 1)).get("owners").toString())
        .isEqualTo("[{\"ownerKey\":\"user:alice\",\"count\":5}]");
    assertThat(call(null, "list_owners", Map.of("q", "ALI")).get("total").asInt()).isEqualTo(1);
    assertThat(call(null, "list_owners", Map.of("prefix", "api:")).get("total").asInt())
        .isEqualTo(1);
    assertThat(call(null, "list_owners", Map.of("counts", false)).get("owners").toString())
        .isEqualTo("[{\"ownerKey\":\"api:7\"},{\"ownerKey\":\"user:alice\"}]");
    assertThat(call(ALICE, "list_owners", Map.of()).get("owners").toString())
        .as("an owner's call sees that owner alone")
        .isEqualTo("[{\"ownerKey\":\"user:alice\",\"count\":5}]");
    assertThat(call(BOB, "list_owners", Map.of()).get("total").asInt()).isZero();
    assertThat(refused(null, "list_owners", Map.of("limit", 1001)))
        .isEqualTo(ToolException.Kind.INVALID_ARGUMENT);

    JsonNode everything = call(null, "count_memories", Map.of("allOwners", true));
    assertThat(everything.get("total").asInt()).as("alice 5, api:7 1, the team 1").isEqualTo(7);
    assertThat(call(null, "count_memories", Map.of()).get("total").asInt()).isEqualTo(1);
    assertThat(
            call(null, "count_memories", Map.of("allOwners", true, "scope", "personal"))
                .get("total")
                .asInt())
        .isEqualTo(6);
    assertThat(refused(ALICE, "count_memories", Map.of("allOwners", true)))
        .isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
  }

  @Test
  @DisplayName(
      "lists each bullet of the owner's and the team's files, without template placeholders")
  void listsTheBulletsOfBothBuckets() {
    JsonNode all = call(ALICE, "list_memories", Map.of());
    assertThat(all.get("total").asInt()).isEqualTo(6);
    JsonNode counted = call(ALICE, "count_memories", Map.of());
    assertThat(counted.get("byType").get("memory").asInt()).isEqualTo(4);
    assertThat(counted.get("byType").get("profile").asInt()).isEqualTo(2);
    assertThat(counted.get("byStatus").get("active").asInt()).isEqualTo(6);

    JsonNode ferry = one(ALICE, "ferry timetable");
    assertThat(ferry.get("id").asString()).startsWith("b-");
    assertThat(ferry.get("text").asString()).isEqualTo("Alice owns the ferry timetable.");
    assertThat(ferry.get("type").asString()).isEqualTo("memory");
    assertThat(ferry.get("section").asString()).isEqualTo("Projects");
    assertThat(ferry.get("scope").asString()).isEqualTo("personal");
    assertThat(ferry.get("owner").asString()).isEqualTo(ALICE);
    assertThat(ferry.get("status").asString()).isEqualTo("active");
    assertThat(ferry.get("createdAt").asString()).isEqualTo("2026-04-01T09:30:00Z");

    JsonNode team = call(ALICE, "list_memories", Map.of("scope", "team"));
    assertThat(team.get("items")).hasSize(1);
    assertThat(team.get("items").get(0).get("text").asString())
        .isEqualTo("The office is in Leith.");
    assertThat(team.get("items").get(0).has("owner")).isFalse();
    assertThat(call(BOB, "list_memories", Map.of()).get("total").asInt()).isEqualTo(1);
    assertThat(
            call(ALICE, "get_memory", Map.of("id", ferry.get("id").asString()))
                .get("text")
                .asString())
        .isEqualTo("Alice owns the ferry timetable.");
    assertThat(refused(BOB, "get_memory", Map.of("id", ferry.get("id").asString())))
        .isEqualTo(ToolException.Kind.NOT_FOUND);
    assertThat(refused(ALICE, "list_memories", Map.of("status", "lost")))
        .isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
  }

  @Test
  @DisplayName(
      "an edit answers a new id, keeps the earlier text in the history; a stale one writes nothing")
  void editsWithOptimisticLocking() {
    JsonNode ferry = one(ALICE, "ferry");
    String id = ferry.get("id").asString();
    String memory = aliceFile("MEMORY.md");

    assertThat(
            refused(
                ALICE,
                "edit_memory",
                Map.of("id", id, "text", "x", "updatedAt", "2026-04-01T09:00:00Z")))
        .isEqualTo(ToolException.Kind.CONFLICT);
    assertThat(aliceFile("MEMORY.md")).isEqualTo(memory);

    JsonNode edited =
        call(
            ALICE,
            "edit_memory",
            Map.of(
                "id",
                id,
                "text",
                "Bob owns the ferry timetable.",
                "updatedAt",
                ferry.get("updatedAt").asString()));
    String newId = edited.get("id").asString();
    assertThat(newId).isNotEqualTo(id);
    assertThat(edited.get("changed").asBoolean()).isTrue();
    assertThat(edited.get("previousId").asString()).isEqualTo(id);
    assertThat(edited.get("createdAt").asString()).isEqualTo(ferry.get("createdAt").asString());
    assertThat(aliceFile("MEMORY.md"))
        .contains("## Projects\n- The harbour app ships in May.\n- Bob owns the ferry timetable.\n")
        .doesNotContain("Alice owns");
    assertThat(call(ALICE, "get_memory", Map.of("id", id)).get("id").asString()).isEqualTo(newId);

    JsonNode events = call(ALICE, "memory_history", Map.of("id", id)).get("events");
    assertThat(events)
        .extracting(e -> e.get("event").asString())
        .containsExactly("added", "updated");
    assertThat(events.get(1).get("previous").asString())
        .isEqualTo("Alice owns the ferry timetable.");
    assertThat(events.get(1).get("text").asString()).isEqualTo("Bob owns the ferry timetable.");
    assertThat(events.get(1).get("other").asString()).isEqualTo(newId);
    assertThat(call(ALICE, "memory_history", Map.of("id", newId)).get("events")).hasSize(2);

    assertThat(
            refused(
                ALICE,
                "edit_memory",
                Map.of("id", newId, "text", "y", "updatedAt", ferry.get("updatedAt").asString())))
        .as("the updatedAt read before the edit is stale now")
        .isEqualTo(ToolException.Kind.CONFLICT);
  }

  @Test
  @DisplayName("archive moves an entry out of its file, prompt and search; activate puts it back")
  void archivesAndActivates() {
    String id = one(ALICE, "PostgreSQL").get("id").asString();

    JsonNode archived = call(ALICE, "update_memory_status", Map.of("id", id, "status", "archived"));
    assertThat(archived.get("status").asString()).isEqualTo("archived");
    assertThat(archived.get("previous").asString()).isEqualTo("active");
    assertThat(aliceFile("MEMORY.md")).doesNotContain("PostgreSQL");
    assertThat(aliceFile("history/archive.md"))
        .contains("## MEMORY.md · Decisions\n- [archived] We use PostgreSQL.");
    assertThat(fx.provider.ownerPromptBlock(AgentId.of("a1"), OwnerKey.of(ALICE)))
        .contains("Alice owns the ferry")
        .doesNotContain("PostgreSQL");
    assertThat(call(ALICE, "search_workspace_memory", Map.of("query", "PostgreSQL")).get("count"))
        .hasToString("0");
    assertThat(call(ALICE, "list_workspace_memory_files", Map.of()).get("files"))
        .extracting(f -> f.get("filename").asString())
        .noneMatch(name -> name.startsWith("history/"));
    assertThat(
            refused(
                ALICE,
                "read_workspace_memory_file",
                Map.of("scope", "personal", "filename", "history/archive.md")))
        .isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
    JsonNode listed = call(ALICE, "list_memories", Map.of("status", "archived")).get("items");
    assertThat(listed).extracting(i -> i.get("id").asString()).containsExactly(id);
    assertThat(refused(ALICE, "update_memory_status", Map.of("id", id, "status", "suppressed")))
        .isEqualTo(ToolException.Kind.CONFLICT);

    call(ALICE, "update_memory_status", Map.of("id", id, "status", "active"));

    assertThat(aliceFile("MEMORY.md")).endsWith("## Decisions\n- We use PostgreSQL.\n");
    assertThat(one(ALICE, "PostgreSQL").get("status").asString()).isEqualTo("active");
    assertThat(aliceFile("history/archive.md")).doesNotContain("PostgreSQL");
    JsonNode events = call(ALICE, "memory_history", Map.of("id", id)).get("events");
    assertThat(events)
        .extracting(e -> e.get("event").asString() + ":" + e.path("status").asString(""))
        .containsExactly("added:", "status:archived", "status:active");
  }

  @Test
  @DisplayName("suppress keeps the entry in the archive marked as wrong")
  void suppresses() {
    String id = one(ALICE, "harbour").get("id").asString();

    call(ALICE, "update_memory_status", Map.of("id", id, "status", "suppressed"));

    assertThat(aliceFile("MEMORY.md")).doesNotContain("harbour");
    assertThat(aliceFile("history/archive.md")).contains("- [suppressed] The harbour app ships");
    assertThat(call(ALICE, "count_memories", Map.of()).get("byStatus").get("suppressed").asInt())
        .isEqualTo(1);
  }

  @Test
  @DisplayName("a file write that adds or drops entries is in their history, with the call's actor")
  void fileWritesAreInTheHistory() {
    String may = one(ALICE, "harbour").get("id").asString();

    call(
        ALICE,
        EnumSet.allOf(Scope.class),
        "console-token",
        "write_workspace_memory_file",
        Map.of(
            "scope",
            "personal",
            "filename",
            "MEMORY.md",
            "content",
            "# MEMORY.md\n\n## Projects\n- The harbour app ships in June.\n"
                + "- Alice owns the ferry timetable.\n\n## Decisions\n- We use PostgreSQL.\n"));

    JsonNode events = call(ALICE, "memory_history", Map.of("id", may)).get("events");
    assertThat(events)
        .extracting(e -> e.get("event").asString())
        .containsExactly("added", "removed");
    assertThat(events.get(1).get("actor").asString()).isEqualTo("console-token");
    assertThat(events.get(1).get("text").asString()).isEqualTo("The harbour app ships in May.");
    assertThat(refused(ALICE, "get_memory", Map.of("id", may)))
        .isEqualTo(ToolException.Kind.NOT_FOUND);
    JsonNode june = one(ALICE, "June");
    assertThat(june.get("createdAt").asString()).isEqualTo("2026-04-01T09:35:00Z");
  }

  @Test
  @DisplayName(
      "a forget leaves only that it happened: no text in the file, any history or DREAMS.md")
  void forgetsEverywhere() {
    fx.tool(
        "a1",
        ALICE,
        "write_workspace_memory_file",
        Map.of(
            "scope",
            "personal",
            "filename",
            "DREAMS.md",
            "content",
            "# Dreams\n- Noticed: Alice owns the ferry timetable.\n"));
    JsonNode ferry = one(ALICE, "ferry");
    String id = ferry.get("id").asString();
    JsonNode edited =
        call(
            ALICE,
            "edit_memory",
            Map.of(
                "id",
                id,
                "text",
                "Bob owns the ferry timetable.",
                "updatedAt",
                ferry.get("updatedAt").asString()));

    JsonNode deleted = call(ALICE, "delete_memory", Map.of("id", id));

    assertThat(deleted.get("deleted").asBoolean()).isTrue();
    assertThat(aliceFile("MEMORY.md")).doesNotContain("ferry").contains("harbour");
    assertThat(aliceFile("DREAMS.md")).contains("[forgotten]").doesNotContain("Alice owns");
    assertThat(aliceHistoryFiles()).doesNotContain("owns the ferry").contains("forgotten");
    assertThat(refused(ALICE, "get_memory", Map.of("id", id)))
        .isEqualTo(ToolException.Kind.NOT_FOUND);
    for (String forgotten : List.of(id, edited.get("id").asString())) {
      JsonNode history = call(ALICE, "memory_history", Map.of("id", forgotten));
      assertThat(history.get("forgotten").asBoolean()).isTrue();
      assertThat(history.get("events")).hasSize(1);
      assertThat(history.get("events").get(0).get("event").asString()).isEqualTo("forgotten");
    }
    assertThat(refused(BOB, "memory_history", Map.of("id", id)))
        .isEqualTo(ToolException.Kind.NOT_FOUND);
  }

  @Test
  @DisplayName(
      "changes follow the caller's rights: another owner's entry is not found, a team one needs team")
  void changesFollowTheCallersRights() {
    String alices = one(ALICE, "harbour").get("id").asString();
    String teams = one(ALICE, "Leith").get("id").asString();
    String teamFile = fx.read("agents/a1/MEMORY.md");

    assertThat(refused(BOB, "delete_memory", Map.of("id", alices)))
        .isEqualTo(ToolException.Kind.NOT_FOUND);
    ToolException forbidden =
        catchThrowableOfType(
            ToolException.class,
            () ->
                call(
                    ALICE,
                    EnumSet.of(Scope.PERSONAL),
                    "personal-only",
                    "update_memory_status",
                    Map.of("id", teams, "status", "archived")));
    assertThat(forbidden).isNotNull();
    assertThat(forbidden.kind()).isEqualTo(ToolException.Kind.FORBIDDEN);
    assertThat(fx.read("agents/a1/MEMORY.md")).isEqualTo(teamFile);
    assertThat(aliceFile("MEMORY.md")).contains("harbour");
  }

  @Test
  @DisplayName(
      "a daily-note entry is a memory with its turn and time; archived, it leaves the note")
  void dailyEntries() {
    fx.provider.syncTurn(
        fx.turn("a1", ALICE, "t-7", "The lighthouse key is under the mat.", "Noted."));
    JsonNode entry = one(ALICE, "lighthouse");
    assertThat(entry.get("type").asString()).isEqualTo("daily");
    assertThat(entry.get("file").asString()).isEqualTo("memory/2026-04-01.md");
    assertThat(entry.get("turn").asString()).isEqualTo("t-7");
    assertThat(entry.get("section").asString()).isEqualTo("09:35 · web · conversation c1");
    assertThat(entry.get("createdAt").asString()).isEqualTo("2026-04-01T09:35:00Z");
    assertThat(entry.get("text").asString())
        .isEqualTo("**User:** The lighthouse key is under the mat.\n**Assistant:** Noted.");
    String id = entry.get("id").asString();

    call(ALICE, "update_memory_status", Map.of("id", id, "status", "archived"));
    assertThat(aliceFile("memory/2026-04-01.md")).doesNotContain("lighthouse");
    call(ALICE, "update_memory_status", Map.of("id", id, "status", "active"));

    assertThat(aliceFile("memory/2026-04-01.md"))
        .contains("### 09:35 · web · conversation c1 <!-- turn:t-7 -->\n**User:** The lighthouse");
    assertThat(one(ALICE, "lighthouse").get("id").asString()).isEqualTo(id);
  }

  @Test
  @DisplayName("erasing an owner removes their history and archive")
  void erasureRemovesTheHistory() {
    String id = one(ALICE, "PostgreSQL").get("id").asString();
    call(ALICE, "update_memory_status", Map.of("id", id, "status", "archived"));
    assertThat(aliceHistoryFiles()).contains("PostgreSQL");

    fx.provider.forget(OwnerKey.of(ALICE));

    assertThat(Files.exists(fx.dataDir.resolve("agents/a1/owners/user%3Aalice"))).isFalse();
    assertThat(refused(ALICE, "memory_history", Map.of("id", id)))
        .isEqualTo(ToolException.Kind.NOT_FOUND);
    assertThat(call(ALICE, "list_memories", Map.of()).get("total").asInt()).isEqualTo(1);
  }
}
