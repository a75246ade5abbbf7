package dev.memstack.builtin.extraction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.BuiltinMemoryProviderFactory;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ToolCall;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.RecordingCoordination;
import dev.memstack.tck.TestProviderContext;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two "hosts" (two builtin providers with data dirs of their own) on one coordination that looks
 * like shared mode: the scheduled structured consolidation runs once per slot, a run on one host
 * makes a manual one on the other skip, and SOUL growth counts the writes of both hosts together.
 */
class ConsolidationAcrossHostsTest {

  private static final Instant START = Instant.parse("2026-04-01T09:30:00Z");
  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey ALICE = OwnerKey.of("user:1");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at(START);
  private final RecordingCoordination shared = RecordingCoordination.shared(clock);
  private final List<MemoryProvider> providers = new ArrayList<>();
  private final List<ScriptedLanguageModel> models = new ArrayList<>();

  @AfterEach
  void close() {
    providers.forEach(MemoryProvider::close);
  }

  private MemoryProvider host(String name) {
    ScriptedLanguageModel model = new ScriptedLanguageModel();
    models.add(model);
    MemoryProvider provider =
        new BuiltinMemoryProviderFactory()
            .create(
                TestProviderContext.builder()
                    .instanceId("builtin")
                    .config(
                        Map.of("schedule-check-interval", "1h", "auto-summarize-enabled", "false"))
                    .dataDir(dir.resolve(name))
                    .clock(clock)
                    .languageModel(model)
                    .coordination(shared)
                    .build());
    providers.add(provider);
    return provider;
  }

  static StructuredConsolidation consolidation(MemoryProvider provider) {
    try {
      var field = provider.getClass().getDeclaredField("consolidation");
      field.setAccessible(true);
      return (StructuredConsolidation) field.get(provider);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void write(MemoryProvider provider, OwnerKey owner, String scope, String text) {
    provider.callTool(
        new ToolCall(
            AGENT,
            owner,
            "write_workspace_memory_file",
            JSON.writeValueAsString(
                Map.of("filename", "MEMORY.md", "scope", scope, "content", text))));
  }

  @Test
  void theScheduledConsolidationRunsOnOneHostPerScheduledTime() {
    MemoryProvider a = host("a");
    MemoryProvider b = host("b");
    write(a, ALICE, "personal", StructuredConsolidationTest.EIGHT_ENTRIES);
    write(b, ALICE, "personal", StructuredConsolidationTest.EIGHT_ENTRIES);
    assertThat(consolidation(a).tick() + consolidation(b).tick()).isZero();

    clock.set(Instant.parse("2026-04-02T03:30:05Z"));
    int ran = consolidation(a).tick();
    clock.set(Instant.parse("2026-04-02T03:30:40Z"));
    ran += consolidation(b).tick();

    assertThat(ran).isEqualTo(1);
    assertThat(shared.claims())
        .containsExactly(
            "structured-consolidation:a1@2026-04-02T03:30:00Z",
            "structured-consolidation:a1@2026-04-02T03:30:00Z (taken)");
    assertThat(models.get(0).calls()).hasSize(1);
    assertThat(models.get(1).calls()).isEmpty();
    assertThat(consolidation(b).lastRun(AGENT)).isEmpty();
    assertThat(consolidation(b).nextRun(AGENT)).contains(Instant.parse("2026-04-03T03:30:00Z"));

    clock.set(Instant.parse("2026-04-03T03:30:01Z"));
    assertThat(consolidation(b).tick() + consolidation(a).tick()).as("next night").isEqualTo(1);
    assertThat(shared.held()).isEmpty();
  }

  @Test
  void aConsolidationRunningOnAnotherHostMakesAManualOneSkip() {
    MemoryProvider a = host("a");
    var otherHost =
        shared.tryLock("structured-consolidation:a1", Duration.ofMinutes(5)).orElseThrow();

    assertThat(consolidation(a).run(AGENT, null, "manual")).isEmpty();
    otherHost.close();
    assertThat(consolidation(a).run(AGENT, null, "manual")).isPresent();
  }

  @Test
  void soulGrowthCountsTheTeamWritesOfEveryHostOnce() throws InterruptedException {
    MemoryProvider a = host("a");
    MemoryProvider b = host("b");
    for (int i = 1; i <= 19; i++) {
      write(i % 2 == 0 ? a : b, null, "team", "# MEMORY.md\n\n## Facts\n- fact " + i + "\n");
    }
    Thread.sleep(100);
    assertThat(models.get(0).calls()).isEmpty();
    assertThat(models.get(1).calls()).isEmpty();

    write(a, null, "team", "# MEMORY.md\n\n## Facts\n- fact 20\n");

    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (models.get(0).calls().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(models.get(0).calls()).hasSize(1);
    assertThat(models.get(0).calls().get(0).system()).contains("SOUL.md");
    assertThat(models.get(1).calls()).isEmpty();
  }
}
