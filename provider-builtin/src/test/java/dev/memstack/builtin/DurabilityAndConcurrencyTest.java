package dev.memstack.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

@DisplayName("Durability and concurrency")
class DurabilityAndConcurrencyTest {

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

  @Test
  @DisplayName("metadata and update times survive a restart on the same directory")
  void metadataSurvivesARestart() {
    fx.tool(
        "a1",
        null,
        "write_workspace_memory_file",
        Map.of("filename", "KNOWLEDGE.md", "content", "The wifi password rotates monthly."));
    fx.tool(
        "a1",
        null,
        "update_workspace_file_meta",
        Map.of("filename", "KNOWLEDGE.md", "enabled", true, "sortOrder", 7));
    fx.tool(
        "a1", null, "update_workspace_file_meta", Map.of("filename", "SOUL.md", "enabled", false));
    JsonNode before = fx.tool("a1", null, "list_workspace_memory_files", Map.of());

    fx.restart();

    JsonNode after = fx.tool("a1", null, "list_workspace_memory_files", Map.of());
    assertThat(after).isEqualTo(before);
    String block = fx.provider.systemPromptBlock(AgentId.of("a1"));
    assertThat(block).contains("--- KNOWLEDGE.md ---").doesNotContain("--- SOUL.md ---");
    assertThat(
            fx.tool("a1", null, "search_workspace_memory", Map.of("query", "wifi")).path("count"))
        .hasToString("1");
  }

  @Test
  @DisplayName("a lost index is rebuilt from the files at start")
  void aLostIndexIsRebuilt() throws Exception {
    fx.provider.syncTurn(fx.turn("a1", "user:1", "t1", "the quokka sanctuary trip", "ok"));
    fx.provider.close();
    deleteTree(dir.resolve("builtin/index"));

    fx.restart();

    assertThat(fx.recall("a1", "user:1", "quokka", 5)).hasSize(1);
  }

  @Test
  @DisplayName("a file changed behind the provider's back is re-indexed at start")
  void aFileChangedOnDiskIsReindexed() throws Exception {
    fx.provider.systemPromptBlock(AgentId.of("a1"));
    fx.provider.close();
    Files.writeString(dir.resolve("builtin/agents/a1/MEMORY.md"), "# MEMORY\n\nthe narwhal plan\n");
    Files.writeString(dir.resolve("builtin/agents/a1/hand-made.md"), "a platypus note\n");

    fx.restart();

    assertThat(
            fx.tool("a1", null, "search_workspace_memory", Map.of("query", "narwhal"))
                .path("count")
                .asInt())
        .isEqualTo(1);
    assertThat(fx.recall("a1", null, "platypus", 5)).hasSize(1);
    assertThat(fx.provider.systemPromptBlock(AgentId.of("a1"))).contains("the narwhal plan");
  }

  @Test
  @DisplayName("temporary files and backups left by a crash are resolved at load")
  void crashLeftoversAreResolved() throws Exception {
    fx.provider.systemPromptBlock(AgentId.of("a1"));
    fx.provider.close();
    Path team = dir.resolve("builtin/agents/a1");
    Files.writeString(team.resolve(".MEMORY.md.0123abcd.tmp"), "half a wri");
    Files.move(team.resolve("SOUL.md"), team.resolve(".SOUL.md.89abcdef.bak"));
    Files.writeString(team.resolve(".PROFILE.md.deadbeef.bak"), "old profile");

    fx.restart();
    JsonNode list = fx.tool("a1", null, "list_workspace_memory_files", Map.of());

    assertThat(list.path("count").asInt()).isEqualTo(4);
    assertThat(fx.read("agents/a1/SOUL.md")).startsWith("# SOUL.md");
    assertThat(fx.read("agents/a1/PROFILE.md")).startsWith("# PROFILE.md");
    try (var files = Files.list(team)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .noneMatch(name -> name.endsWith(".tmp") || name.endsWith(".bak"));
    }
  }

  @Test
  @DisplayName("concurrent edits of one file are serialised and none is lost")
  void concurrentEditsAreSerialised() throws Exception {
    fx.tool(
        "a1",
        null,
        "write_workspace_memory_file",
        Map.of("filename", "KNOWLEDGE.md", "content", "# Log\n<!-- end -->\n"));
    int writers = 8;
    int editsEach = 15;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      futures.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < editsEach; i++) {
                  fx.tool(
                      "a1",
                      null,
                      "edit_workspace_memory_file",
                      Map.of(
                          "filename",
                          "KNOWLEDGE.md",
                          "oldText",
                          "<!-- end -->",
                          "newText",
                          "- entry " + writer + "." + i + "\n<!-- end -->"));
                }
                return null;
              }));
    }
    start.countDown();
    for (Future<?> future : futures) {
      future.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();

    String content = fx.read("agents/a1/KNOWLEDGE.md");
    assertThat(content.lines().filter(l -> l.startsWith("- entry "))).hasSize(writers * editsEach);
    for (int w = 0; w < writers; w++) {
      for (int i = 0; i < editsEach; i++) {
        assertThat(content).contains("- entry " + w + "." + i + "\n");
      }
    }
    assertThat(content).endsWith("<!-- end -->\n");
  }

  @Test
  @DisplayName("concurrent turns of one owner all land in the daily note")
  void concurrentTurnsAllLand() throws Exception {
    int turns = 40;
    ExecutorService pool = Executors.newFixedThreadPool(6);
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < turns; i++) {
      int n = i;
      futures.add(
          pool.submit(
              () -> {
                fx.provider.syncTurn(
                    fx.turn("a1", "user:1", "turn-" + n, "message number " + n, "reply " + n));
                return null;
              }));
    }
    for (Future<?> future : futures) {
      future.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();

    String note = fx.read("agents/a1/owners/user%3A1/memory/2026-04-01.md");
    for (int i = 0; i < turns; i++) {
      assertThat(note).contains("<!-- turn:turn-" + i + " -->");
    }
  }

  @Test
  @DisplayName("a turn on a later day starts a new daily note")
  void aLaterTurnStartsANewNote() {
    fx.provider.syncTurn(fx.turn("a1", "user:1", "t1", "day one", "ok"));
    fx.clock.advance(Duration.ofDays(1));
    fx.provider.syncTurn(fx.turn("a1", "user:1", "t2", "day two", "ok"));

    assertThat(fx.read("agents/a1/owners/user%3A1/memory/2026-04-02.md"))
        .startsWith("# 2026-04-02\n")
        .contains("day two")
        .doesNotContain("day one");
  }

  private static void deleteTree(Path root) throws Exception {
    try (var paths = Files.walk(root)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
