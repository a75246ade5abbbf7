package dev.memstack.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The injection budget of PROFILE.md and MEMORY.md entries: prompt blocks keep the newest entries
 * per file and under the character limit, say how many they left out, and the files stay whole.
 */
class InjectionBudgetTest {

  @TempDir Path dir;
  private Fixture fx;

  @AfterEach
  void close() {
    if (fx != null) {
      fx.close();
    }
  }

  private static String memory(int entries) {
    StringBuilder out = new StringBuilder("# MEMORY.md\n\n## Log\n");
    for (int i = 1; i <= entries; i++) {
      out.append("- fact ")
          .append(i)
          .append(" (2026-03-")
          .append(String.format("%02d", i))
          .append(")\n");
    }
    return out.toString();
  }

  @Test
  void theOwnerBlockKeepsTheNewestEntriesPerFileAndDisclosesTheRest() {
    fx = Fixture.open(dir, Map.of("system-block-max-entries-per-type", "3"));
    String content = memory(5).replace("- fact 2 (2026-03-02)", "- fact 2 (2026-03-20)");
    fx.tool(
        "a1",
        "user:1",
        "write_workspace_memory_file",
        Map.of("filename", "MEMORY.md", "scope", "personal", "content", content));

    String block = fx.provider.ownerPromptBlock(AgentId.of("a1"), OwnerKey.of("user:1"));

    assertThat(block)
        .contains("## Log")
        .contains("- fact 2 (2026-03-20)")
        .contains("- fact 4")
        .contains("- fact 5")
        .doesNotContain("- fact 1 ")
        .doesNotContain("- fact 3 ")
        .endsWith(
            "[memory: 2 of 5 entries of PROFILE.md and MEMORY.md left out, oldest first, to stay"
                + " within 3 entries per file and 4000 characters; the files keep them]");
    assertThat(
            fx.tool(
                    "a1",
                    "user:1",
                    "read_workspace_memory_file",
                    Map.of("filename", "MEMORY.md", "scope", "personal"))
                .get("content")
                .asString())
        .as("the file stays whole")
        .isEqualTo(content);
  }

  @Test
  void theSystemBlockStaysWithinTheCharacterLimitNewestFirst() {
    fx = Fixture.open(dir, Map.of("system-block-max-chars", "100"));
    fx.tool(
        "a1",
        null,
        "write_workspace_memory_file",
        Map.of("filename", "MEMORY.md", "scope", "team", "content", memory(10)));

    String block = fx.provider.systemPromptBlock(AgentId.of("a1"));

    // each entry is 22 characters with its line break; the template PROFILE.md's are undated
    assertThat(block).contains("- fact 10 (2026-03-10)").contains("- fact 7 (2026-03-07)");
    assertThat(block).doesNotContain("- fact 6 ").doesNotContain("- Name:");
    assertThat(block).contains("--- AGENTS.md ---").contains("--- SOUL.md ---");
    assertThat(block)
        .endsWith("to stay within 40 entries per file and 100 characters; the files keep them]");
    assertThat(block).contains("[memory: 10 of 14 entries");
  }

  @Test
  void zeroMeansNoLimit() {
    fx =
        Fixture.open(
            dir, Map.of("system-block-max-chars", "0", "system-block-max-entries-per-type", "0"));
    fx.tool(
        "a1",
        null,
        "write_workspace_memory_file",
        Map.of("filename", "MEMORY.md", "scope", "team", "content", memory(60)));

    assertThat(fx.provider.systemPromptBlock(AgentId.of("a1")))
        .contains("- fact 1 (2026-03-01)")
        .doesNotContain("[memory:");
  }
}
