package dev.memstack.builtin.extraction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.BuiltinMemoryProviderFactory;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ToolCall;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.TestProviderContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * SOUL growth: SOUL.md is rewritten from the team's memory on every {@code soul-update-interval}th
 * write to it, never from an owner's personal memory.
 */
class SoulGrowthTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey ALICE = OwnerKey.of("user:1");
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String SECRET = "Alice's passport number is X-99-SECRET";
  private static final String NEW_SOUL =
      "{\"should_update\": true, \"reason\": \"the team settled on Kotlin and short answers\","
          + " \"soul_content\": \"# SOUL.md: who I am\\n\\n## Identity\\nI help a Kotlin team"
          + " and answer briefly.\"}";

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at(Instant.parse("2026-04-01T09:30:00Z"));
  private final ScriptedLanguageModel model = new ScriptedLanguageModel();
  private MemoryProvider provider;

  @AfterEach
  void close() {
    if (provider != null) {
      provider.close();
    }
  }

  private void open(Map<String, String> config, LanguageModel languageModel) {
    Map<String, String> all =
        new HashMap<>(Map.of("schedule-check-interval", "1h", "auto-summarize-enabled", "false"));
    all.putAll(config);
    provider =
        new BuiltinMemoryProviderFactory()
            .create(
                TestProviderContext.builder()
                    .instanceId("builtin")
                    .config(all)
                    .dataDir(dir)
                    .clock(clock)
                    .languageModel(languageModel)
                    .build());
  }

  private void write(OwnerKey owner, String scope, String file, String content) {
    provider.callTool(
        new ToolCall(
            AGENT,
            owner,
            "write_workspace_memory_file",
            JSON.writeValueAsString(Map.of("filename", file, "scope", scope, "content", content))));
  }

  private void teamWrite(int i) {
    write(null, "team", "MEMORY.md", "# MEMORY.md\n\n## Decisions\n- Decision " + i + ": Kotlin\n");
  }

  private String team(String file) {
    try {
      Path path = dir.resolve("agents").resolve(AGENT.value()).resolve(file);
      return Files.exists(path) ? Files.readString(path) : "";
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static void eventually(BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(20);
    }
  }

  @Test
  void soulIsRewrittenOnTheTwentiethTeamWriteAndNotBefore() throws InterruptedException {
    model.answer(NEW_SOUL);
    open(Map.of(), model);
    write(ALICE, "personal", "MEMORY.md", "# MEMORY.md\n\n## Private\n- " + SECRET + "\n");
    for (int i = 1; i <= 19; i++) {
      teamWrite(i);
      write(ALICE, "personal", "PROFILE.md", "# PROFILE.md\n\n- " + SECRET + " (" + i + ")\n");
    }
    write(null, "team", "SOUL.md", team("SOUL.md")); // SOUL.md itself does not count
    Thread.sleep(200);
    assertThat(model.calls()).as("after 19 team writes").isEmpty();
    String before = team("SOUL.md");

    teamWrite(20);

    eventually(() -> team("SOUL.md").contains("Kotlin team"), "SOUL.md is rewritten");
    assertThat(model.calls()).hasSize(1);
    ScriptedLanguageModel.Call call = model.calls().get(0);
    assertThat(call.user())
        .contains("Decision 20: Kotlin")
        .contains("I am a helpful assistant")
        .doesNotContain("X-99-SECRET");
    assertThat(call.system()).doesNotContain("X-99-SECRET");
    eventually(() -> team("DREAMS.md").contains("soul update"), "the change is journaled");
    String dreams = team("DREAMS.md");
    assertThat(dreams)
        .contains("· team · soul update")
        .contains("- Patterns: the team settled on Kotlin and short answers")
        .contains(
            "- Changed: SOUL.md rewritten ("
                + before.length()
                + " → "
                + team("SOUL.md").length()
                + " chars) after write 20 to team memory")
        .doesNotContain("X-99-SECRET");
    assertThat(team("SOUL.md")).doesNotContain("X-99-SECRET");

    for (int i = 21; i <= 39; i++) {
      teamWrite(i);
    }
    Thread.sleep(100);
    assertThat(model.calls()).as("the next rewrite comes at write 40").hasSize(1);
  }

  @Test
  void anIntervalOfZeroOrNoModelNeverRewrites() throws InterruptedException {
    open(Map.of("soul-update-interval", "0"), model);
    for (int i = 1; i <= 20; i++) {
      teamWrite(i);
    }
    provider.close();
    open(Map.of("soul-update-interval", "2"), LanguageModel.none());
    String before = team("SOUL.md");
    for (int i = 1; i <= 4; i++) {
      teamWrite(i);
    }
    Thread.sleep(100);
    assertThat(model.calls()).isEmpty();
    assertThat(team("SOUL.md")).isEqualTo(before);
  }

  @Test
  void writesOfTheMemoryJobsToTheTeamCountToo() throws InterruptedException {
    model.answer(
        "{\"should_update\": true, \"reason\": \"r\", \"memory_content\": \"# M\\n\\n- a\"}");
    model.answer(NEW_SOUL);
    open(Map.of("soul-update-interval", "2"), model);
    teamWrite(1);

    provider.callTool(new ToolCall(AGENT, null, "run_emergence", "{}"));

    eventually(() -> team("SOUL.md").contains("Kotlin team"), "SOUL.md is rewritten");
    eventually(() -> team("DREAMS.md").contains("soul update"), "the change is journaled");
  }
}
