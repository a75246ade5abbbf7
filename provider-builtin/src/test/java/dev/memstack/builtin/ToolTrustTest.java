package dev.memstack.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Builtin tools and the caller's rights")
class ToolTrustTest {

  private static final Set<Scope> PERSONAL_ONLY = EnumSet.of(Scope.PERSONAL);

  @TempDir Path dir;
  private Fixture fx;

  @AfterEach
  void close() {
    if (fx != null) {
      fx.close();
    }
  }

  private ToolException refused(String tool, Set<Scope> writable, Map<String, ?> arguments) {
    ToolCall call =
        new ToolCall(
            AgentId.of("a1"), OwnerKey.of("api:1"), tool, Fixture.json(arguments), writable);
    ToolException error =
        catchThrowableOfType(ToolException.class, () -> fx.provider.callTool(call));
    assertThat(error)
        .as("%s(%s) by a caller who may write %s", tool, arguments, writable)
        .isNotNull();
    return error;
  }

  @Test
  @DisplayName("declares every tool's effect: reads read, the rest write")
  void declaresEveryToolsEffect() {
    fx = Fixture.open(dir.resolve("builtin"));

    assertThat(fx.provider.tools())
        .allSatisfy(spec -> assertThat(spec.effect()).isNotEqualTo(ToolSpec.Effect.UNDECLARED));
    assertThat(fx.provider.tools())
        .filteredOn(spec -> spec.effect() == ToolSpec.Effect.READ)
        .extracting(ToolSpec::name)
        .containsExactlyInAnyOrder(
            "list_workspace_memory_files",
            "read_workspace_memory_file",
            "search_workspace_memory",
            "export_workspace_memory",
            "dreaming_status",
            "dream_reports",
            "dream_morning_card",
            "list_memories",
            "count_memories",
            "list_owners",
            "get_memory",
            "memory_history");
  }

  @Test
  @DisplayName("refuses a personal-only caller every change to a team or global file, before it")
  void refusesAPersonalOnlyCallerChangesToSharedFiles() throws Exception {
    fx = Fixture.open(dir.resolve("builtin"));
    fx.provider.systemPromptBlock(AgentId.of("a1")); // seeds the team's core files
    String agents = fx.read("agents/a1/AGENTS.md");
    String soul = fx.read("agents/a1/SOUL.md");

    for (Map<String, ?> target :
        List.of(
            Map.of("scope", "team", "filename", "AGENTS.md"),
            Map.of("scope", "team", "filename", "SOUL.md"),
            Map.of("filename", "SOUL.md"), // SOUL.md is a team file by default
            Map.of("scope", "global", "filename", "reference/facts.md"))) {
      Map<String, Object> write = new HashMap<>(target);
      write.put("content", "# taken over");
      assertThat(refused("write_workspace_memory_file", PERSONAL_ONLY, write).kind())
          .isEqualTo(ToolException.Kind.FORBIDDEN);
      Map<String, Object> edit = new HashMap<>(target);
      edit.put("oldText", "#");
      edit.put("newText", "!");
      assertThat(refused("edit_workspace_memory_file", PERSONAL_ONLY, edit).kind())
          .isEqualTo(ToolException.Kind.FORBIDDEN);
      Map<String, Object> meta = new HashMap<>(target);
      meta.put("enabled", false);
      assertThat(refused("update_workspace_file_meta", Set.of(), meta).kind())
          .as("a read-only caller")
          .isEqualTo(ToolException.Kind.FORBIDDEN);
    }
    assertThat(
            refused(
                    "import_workspace_memory",
                    PERSONAL_ONLY,
                    Map.of("zipBase64", "UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA=="))
                .kind())
        .as("an import into the team (the default scope)")
        .isEqualTo(ToolException.Kind.FORBIDDEN);

    assertThat(fx.read("agents/a1/AGENTS.md")).isEqualTo(agents);
    assertThat(fx.read("agents/a1/SOUL.md")).isEqualTo(soul);
    assertThat(Files.exists(fx.dataDir.resolve("global/reference/facts.md"))).isFalse();

    // the owner's own personal file stays writable for that caller
    ToolCall own =
        new ToolCall(
            AgentId.of("a1"),
            OwnerKey.of("api:1"),
            "write_workspace_memory_file",
            Fixture.json(Map.of("scope", "personal", "filename", "MEMORY.md", "content", "# mine")),
            PERSONAL_ONLY);
    assertThat(fx.provider.callTool(own)).contains("\"created\":true");
  }

  @Test
  @DisplayName("names the argument of every argument error")
  void namesTheArgument() {
    fx = Fixture.open(dir.resolve("builtin"));

    assertThat(fx.toolError("a1", "api:1", "search_workspace_memory", Map.of("qeury", "x")).field())
        .isEqualTo("qeury");
    assertThat(fx.toolError("a1", "api:1", "search_workspace_memory", Map.of("query", 5)).field())
        .isEqualTo("query");
    assertThat(
            fx.toolError(
                    "a1", "api:1", "search_workspace_memory", Map.of("query", "x", "limit", 500))
                .field())
        .isEqualTo("limit");
    assertThat(
            fx.toolError("a1", "api:1", "read_workspace_memory_file", Map.of("filename", "../x.md"))
                .field())
        .isEqualTo("filename");
    assertThat(
            fx.toolError(
                    "a1",
                    "api:1",
                    "read_workspace_memory_file",
                    Map.of("filename", "MEMORY.md", "scope", "galaxy"))
                .field())
        .isEqualTo("scope");
    assertThat(
            fx.toolError(
                    "a1",
                    "api:1",
                    "import_workspace_memory",
                    Map.of("zipBase64", "bm90IGEgemlw", "preview", false))
                .field())
        .isEqualTo("zipBase64");
  }

  @Test
  @DisplayName("with per-owner off, the same turn id of two owners makes two team entries")
  void theSameTurnIdOfTwoOwnersMakesTwoTeamEntries() {
    fx = Fixture.open(dir.resolve("shared"), Map.of("per-owner", "false"));

    fx.provider.syncTurn(fx.turn("a1", "api:1", "t1", "the kumquat harvest", "ok"));
    fx.provider.syncTurn(fx.turn("a1", "api:2", "t1", "the persimmon harvest", "ok"));
    fx.provider.syncTurn(fx.turn("a1", "api:2", "t1", "the persimmon harvest", "ok"));

    String note = fx.read("agents/a1/memory/2026-04-01.md");
    assertThat(note).contains("kumquat").contains("persimmon");
    assertThat(note.split("persimmon", -1)).as("a redelivery is written once").hasSize(2);
  }

  @Test
  @DisplayName("counts a team entry marked by turn id alone (before 0.2.0) as already written")
  void countsAnOldTeamMarkerAsWritten() throws Exception {
    fx = Fixture.open(dir.resolve("shared"), Map.of("per-owner", "false"));
    fx.provider.systemPromptBlock(AgentId.of("a1"));
    Path note = fx.dataDir.resolve("agents/a1/memory/2026-04-01.md");
    Files.createDirectories(note.getParent());
    Files.writeString(
        note,
        "# 2026-04-01\n\n### 09:00 · api · conversation c1 <!-- turn:t-old -->\n**User:** old\n");
    fx.restart();

    fx.provider.syncTurn(fx.turn("a1", "api:1", "t-old", "the quince harvest", "ok"));

    assertThat(fx.read("agents/a1/memory/2026-04-01.md")).doesNotContain("quince");
  }
}
