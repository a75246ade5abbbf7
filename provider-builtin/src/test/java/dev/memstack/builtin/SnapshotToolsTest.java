package dev.memstack.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.ToolException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

@DisplayName("Memory snapshots")
class SnapshotToolsTest {

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
  @DisplayName("export then import into another agent reproduces the whitelisted files")
  void exportThenImportReproducesTheFiles() throws IOException {
    write("a1", "MEMORY.md", "# MEMORY\n\n## Projects\n- Kestrel launch in May\n");
    write("a1", "KNOWLEDGE.md", "# Knowledge\n记忆快照\n");
    write("a1", "memory/2026-03-30.md", "# 2026-03-30\n\nnotes\n");
    write("a1", "scratch.md", "not in snapshots");

    JsonNode exported = fx.tool("a1", null, "export_workspace_memory", Map.of());
    byte[] zip = Base64.getDecoder().decode(exported.path("zipBase64").asString());
    Map<String, String> entries = unzip(zip);

    assertThat(exported.path("contentType").asString()).isEqualTo("application/zip");
    assertThat(exported.path("count").asInt()).isEqualTo(6);
    assertThat(entries.keySet())
        .containsExactlyInAnyOrder(
            "manifest.json",
            "AGENTS.md",
            "SOUL.md",
            "PROFILE.md",
            "MEMORY.md",
            "KNOWLEDGE.md",
            "memory/2026-03-30.md");
    JsonNode manifest = Fixture.JSON.readTree(entries.get("manifest.json"));
    assertThat(manifest.path("agentId").asString()).isEqualTo("a1");
    assertThat(manifest.path("files")).hasSize(6);

    JsonNode preview =
        fx.tool(
            "b2",
            null,
            "import_workspace_memory",
            Map.of("zipBase64", exported.path("zipBase64").asString(), "preview", true));
    assertThat(preview.path("applied").asBoolean()).isFalse();
    assertThat(actions(preview))
        .containsExactly(
            "AGENTS.md=skip",
            "SOUL.md=skip",
            "PROFILE.md=skip",
            "MEMORY.md=update",
            "KNOWLEDGE.md=create",
            "memory/2026-03-30.md=create");
    assertThat(dir.resolve("builtin/agents/b2")).doesNotExist();

    JsonNode applied =
        fx.tool(
            "b2",
            null,
            "import_workspace_memory",
            Map.of("zipBase64", exported.path("zipBase64").asString(), "preview", false));
    assertThat(applied.path("applied").asBoolean()).isTrue();
    assertThat(actions(applied)).isEqualTo(actions(preview));
    for (String name :
        List.of(
            "AGENTS.md",
            "SOUL.md",
            "PROFILE.md",
            "MEMORY.md",
            "KNOWLEDGE.md",
            "memory/2026-03-30.md")) {
      assertThat(fx.read("agents/b2/" + name)).as(name).isEqualTo(fx.read("agents/a1/" + name));
    }
    assertThat(dir.resolve("builtin/agents/b2/scratch.md")).doesNotExist();
    assertThat(fx.provider.systemPromptBlock(dev.memstack.spi.AgentId.of("b2")))
        .contains("Kestrel launch in May");
    assertThat(fx.tool("b2", null, "search_workspace_memory", Map.of("query", "快照")).path("count"))
        .hasToString("1");
    JsonNode again =
        fx.tool(
            "b2",
            null,
            "import_workspace_memory",
            Map.of("zipBase64", exported.path("zipBase64").asString()));
    assertThat(again.path("skipped").asInt()).isEqualTo(6);
  }

  @Test
  @DisplayName("preview classifies create, update and skip and reports ignored entries")
  void previewClassifiesEntries() throws IOException {
    write("a1", "KNOWLEDGE.md", "same");
    write("a1", "MEMORY.md", "old");
    Map<String, byte[]> entries = new LinkedHashMap<>();
    entries.put("KNOWLEDGE.md", bytes("same"));
    entries.put("MEMORY.md", bytes("new"));
    entries.put("memory/2026-01-02.md", bytes("# 2026-01-02\n"));
    entries.put("notes/other.md", bytes("ignored"));
    entries.put("run.sh", bytes("echo"));
    Map<String, String> before = fx.tree();

    JsonNode preview =
        fx.tool("a1", null, "import_workspace_memory", Map.of("zipBase64", base64(zip(entries))));

    assertThat(actions(preview))
        .containsExactly("KNOWLEDGE.md=skip", "MEMORY.md=update", "memory/2026-01-02.md=create");
    assertThat(preview.path("ignored").findValuesAsString("name"))
        .containsExactly("notes/other.md", "run.sh");
    assertThat(fx.tree()).isEqualTo(before);
  }

  @Test
  @DisplayName("a zip bomb is refused with nothing written")
  void aZipBombIsRefused() throws IOException {
    write("a1", "MEMORY.md", "old");
    Map<String, byte[]> entries = new LinkedHashMap<>();
    entries.put("MEMORY.md", bytes("new"));
    entries.put("KNOWLEDGE.md", new byte[3 * 1024 * 1024]);
    byte[] bomb = zip(entries);
    assertThat(bomb.length).isLessThan(64 * 1024);
    Map<String, String> before = fx.tree();

    ToolException error =
        fx.toolError(
            "a1",
            null,
            "import_workspace_memory",
            Map.of("zipBase64", base64(bomb), "preview", false));

    assertThat(error.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
    assertThat(error).hasMessageStartingWith("zipBase64").hasMessageContaining("KNOWLEDGE.md");
    assertThat(fx.tree()).isEqualTo(before);
  }

  @Test
  @DisplayName("an archive past 16 MiB in all, or past 500 entries, is refused")
  void archivesPastTheTotalLimitsAreRefused() throws IOException {
    fx.provider.systemPromptBlock(dev.memstack.spi.AgentId.of("a1"));
    Map<String, byte[]> big = new LinkedHashMap<>();
    for (int day = 1; day <= 17; day++) {
      big.put(String.format("memory/2026-01-%02d.md", day), bytes("a".repeat(1_000_000)));
    }
    Map<String, byte[]> many = new LinkedHashMap<>();
    for (int i = 0; i < 501; i++) {
      many.put("junk/" + i + ".txt", bytes("x"));
    }
    Map<String, String> before = fx.tree();

    assertThat(
            fx.toolError(
                "a1",
                null,
                "import_workspace_memory",
                Map.of("zipBase64", base64(zip(big)), "preview", false)))
        .hasMessageContaining("16777216 bytes in all");
    assertThat(
            fx.toolError(
                "a1",
                null,
                "import_workspace_memory",
                Map.of("zipBase64", base64(zip(many)), "preview", false)))
        .hasMessageContaining("more than 500 entries");
    assertThat(fx.tree()).isEqualTo(before);
  }

  @Test
  @DisplayName("zip-slip names refuse the whole archive with nothing written")
  void zipSlipIsRefused() throws IOException {
    fx.provider.systemPromptBlock(dev.memstack.spi.AgentId.of("a1"));
    Map<String, String> before = fx.tree();

    for (String evil :
        List.of(
            "../evil.md",
            "memory/../../evil.md",
            "/etc/evil.md",
            "..\\evil.md",
            "C:/evil.md",
            "%2e%2e/evil.md")) {
      Map<String, byte[]> entries = new LinkedHashMap<>();
      entries.put("MEMORY.md", bytes("overwritten?"));
      entries.put(evil, bytes("evil"));
      ToolException error =
          fx.toolError(
              "a1",
              null,
              "import_workspace_memory",
              Map.of("zipBase64", base64(zip(entries)), "preview", false));
      assertThat(error.kind()).as(evil).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
      assertThat(error).as(evil).hasMessageContaining("the archive is refused");
    }

    assertThat(fx.tree()).isEqualTo(before);
    assertThat(dir.resolve("evil.md")).doesNotExist();
    assertThat(dir.resolve("builtin/evil.md")).doesNotExist();
  }

  @Test
  @DisplayName("garbage instead of a ZIP is refused naming zipBase64")
  void garbageIsRefused() {
    assertThat(
            fx.toolError(
                "a1", null, "import_workspace_memory", Map.of("zipBase64", "not base64!!")))
        .hasMessageStartingWith("zipBase64");
    assertThat(
            fx.toolError(
                "a1",
                null,
                "import_workspace_memory",
                Map.of("zipBase64", base64(bytes("plain text, not a zip")))))
        .hasMessageStartingWith("zipBase64");
  }

  @Test
  @DisplayName("personal snapshots move one owner's files")
  void personalSnapshotsMoveOneOwnersFiles() throws IOException {
    fx.provider.syncTurn(fx.turn("a1", "user:1", "t1", "my llama is named Dolly", "ok"));
    JsonNode exported =
        fx.tool("a1", "user:1", "export_workspace_memory", Map.of("scope", "personal"));

    assertThat(unzip(Base64.getDecoder().decode(exported.path("zipBase64").asString())).keySet())
        .containsExactlyInAnyOrder("manifest.json", "memory/2026-04-01.md");
    fx.tool(
        "a2",
        "user:1",
        "import_workspace_memory",
        Map.of(
            "zipBase64",
            exported.path("zipBase64").asString(),
            "preview",
            false,
            "scope",
            "personal"));
    assertThat(fx.recall("a2", "user:1", "Dolly", 5)).isNotEmpty();
    assertThat(fx.recall("a2", "user:2", "Dolly", 5)).isEmpty();
  }

  private void write(String agent, String name, String content) {
    fx.tool(
        agent,
        null,
        "write_workspace_memory_file",
        Map.of("filename", name, "content", content, "scope", "team"));
  }

  private static List<String> actions(JsonNode answer) {
    List<String> actions = new ArrayList<>();
    for (JsonNode entry : answer.path("entries")) {
      actions.add(entry.path("filename").asString() + "=" + entry.path("action").asString());
    }
    return actions;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  static byte[] zip(Map<String, byte[]> entries) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(out)) {
      for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
        zip.putNextEntry(new ZipEntry(entry.getKey()));
        zip.write(entry.getValue());
        zip.closeEntry();
      }
    }
    return out.toByteArray();
  }

  private static Map<String, String> unzip(byte[] zip) throws IOException {
    Map<String, String> entries = new LinkedHashMap<>();
    try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
      ZipEntry entry;
      while ((entry = in.getNextEntry()) != null) {
        entries.put(entry.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    return entries;
  }
}
