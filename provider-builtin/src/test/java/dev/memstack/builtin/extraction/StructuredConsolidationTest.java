package dev.memstack.builtin.extraction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.builtin.BuiltinMemoryProviderFactory;
import dev.memstack.builtin.store.files.OwnerDirectoryName;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.TestProviderContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Structured consolidation of the builtin provider against a scripted chat model: the model's
 * merged list replaces the entries, an answer that would grow them writes nothing, small buckets
 * are not sent, one owner's run leaves every other owner alone, and no model is a conflict.
 */
class StructuredConsolidationTest {

  private static final Instant START = Instant.parse("2026-04-01T09:30:00Z");
  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey ALICE = OwnerKey.of("user:1");
  private static final OwnerKey BOB = OwnerKey.of("user:2");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  static final String EIGHT_ENTRIES =
      """
      # MEMORY.md

      Kept by the agent.

      ## Projects
      - Billing service in Kotlin
      - The billing service is written in Kotlin
      - Launch planned for Friday 2026-03-27
      - Launch moved to Monday 2026-03-30
        (after the load test)

      ## Decisions
      - Use PostgreSQL
      - Database: PostgreSQL 15
      - Deploy with Helm
      - Deploy on Kubernetes with Helm
      """;

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at(START);
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

  private void open() {
    open(Map.of(), model);
  }

  private JsonNode tool(OwnerKey owner, String name, Map<String, ?> arguments) {
    return JSON.readTree(
        provider.callTool(new ToolCall(AGENT, owner, name, JSON.writeValueAsString(arguments))));
  }

  private void writePersonal(OwnerKey owner, String file, String content) {
    tool(
        owner,
        "write_workspace_memory_file",
        Map.of("filename", file, "scope", "personal", "content", content));
  }

  private Path personal(OwnerKey owner, String file) {
    return dir.resolve("agents")
        .resolve(AGENT.value())
        .resolve("owners")
        .resolve(OwnerDirectoryName.encode(owner))
        .resolve(file);
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] bytes(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** An answer with {@code texts} as entries of MEMORY.md, the first half under "Projects". */
  private static String answer(String reason, List<String> projects, List<String> decisions) {
    List<Map<String, String>> entries = new ArrayList<>();
    projects.forEach(
        t -> entries.add(Map.of("file", "MEMORY.md", "section", "Projects", "text", t)));
    decisions.forEach(
        t -> entries.add(Map.of("file", "MEMORY.md", "section", "Decisions", "text", t)));
    return "```json\n"
        + JSON.writeValueAsString(
            Map.of(
                "reason",
                reason,
                "merged",
                List.of("two Kotlin lines into one"),
                "entries",
                entries))
        + "\n```";
  }

  private JsonNode consolidate(OwnerKey owner) {
    return tool(
        owner,
        "run_structured_consolidation",
        owner == null ? Map.of() : Map.of("ownerKey", owner.value()));
  }

  @Test
  void theModelsShorterListReplacesTheEntriesAndTheJournalSaysSo() {
    open();
    writePersonal(ALICE, "MEMORY.md", EIGHT_ENTRIES);
    writePersonal(BOB, "MEMORY.md", EIGHT_ENTRIES.replace("Kotlin", "Scala"));
    byte[] bobBefore = bytes(personal(BOB, "MEMORY.md"));
    model.answer(
        answer(
            "duplicates merged, the old launch date dropped",
            List.of(
                "Billing service in Kotlin", "Launch on Monday 2026-03-30, after the load test"),
            List.of("Database: PostgreSQL 15", "Deploy on Kubernetes with Helm")));

    JsonNode run = consolidate(ALICE);

    assertThat(run.get("status").asString()).isEqualTo("completed");
    assertThat(run.get("ownersConsolidated").asInt()).isEqualTo(1);
    assertThat(run.get("updated").asInt()).isEqualTo(1);
    assertThat(run.get("entriesBefore").asInt()).isEqualTo(8);
    assertThat(run.get("entriesAfter").asInt()).isEqualTo(4);
    assertThat(run.get("buckets").get(0).get("status").asString()).isEqualTo("updated");
    assertThat(read(personal(ALICE, "MEMORY.md")))
        .isEqualTo(
            """
            # MEMORY.md

            Kept by the agent.

            ## Projects
            - Billing service in Kotlin
            - Launch on Monday 2026-03-30, after the load test

            ## Decisions
            - Database: PostgreSQL 15
            - Deploy on Kubernetes with Helm
            """);
    assertThat(read(personal(ALICE, "DREAMS.md")))
        .contains("## 2026-04-01 09:30 · personal user:1 · structured consolidation (manual)")
        .contains("- Read: PROFILE.md (0 entries), MEMORY.md (8 entries)")
        .contains("two Kotlin lines into one")
        .contains("- Changed: MEMORY.md 8 → 4 entries");
    assertThat(bytes(personal(BOB, "MEMORY.md"))).as("another owner's file").isEqualTo(bobBefore);
    assertThat(personal(BOB, "DREAMS.md")).doesNotExist();
    assertThat(model.calls()).hasSize(1);
    String prompt = model.calls().get(0).user();
    assertThat(prompt)
        .contains("\"file\":\"MEMORY.md\",\"section\":\"Projects\",\"text\":\"Billing service in")
        .contains("Launch moved to Monday 2026-03-30\\n(after the load test)")
        .doesNotContain("Scala");
  }

  @Test
  void anAnswerWithMoreEntriesThanItWasGivenWritesNothing() {
    open();
    writePersonal(ALICE, "MEMORY.md", EIGHT_ENTRIES);
    byte[] before = bytes(personal(ALICE, "MEMORY.md"));
    List<String> five = List.of("a", "b", "c", "d", "e");
    model.answer(answer("I found more", five, List.of("f", "g", "h", "i")));

    JsonNode run = consolidate(ALICE);

    assertThat(bytes(personal(ALICE, "MEMORY.md"))).isEqualTo(before);
    assertThat(run.get("updated").asInt()).isZero();
    assertThat(run.get("entriesAfter").asInt()).isEqualTo(8);
    JsonNode bucket = run.get("buckets").get(0);
    assertThat(bucket.get("status").asString()).isEqualTo("grew");
    assertThat(bucket.get("reason").asString())
        .contains("returned 9 entries for 8")
        .contains("nothing written");
    assertThat(read(personal(ALICE, "DREAMS.md"))).contains("- Changed: nothing (the model");
  }

  @Test
  void anAnswerThatInventsASectionOrIsNoJsonWritesNothing() {
    open();
    writePersonal(ALICE, "MEMORY.md", EIGHT_ENTRIES);
    byte[] before = bytes(personal(ALICE, "MEMORY.md"));
    model.answer(
        "{\"entries\": [{\"file\": \"MEMORY.md\", \"section\": \"Secrets\", \"text\": \"x\"}]}");
    model.answer("I merged them all, trust me");

    assertThat(consolidate(ALICE).get("buckets").get(0).get("status").asString())
        .isEqualTo("invalid_answer");
    assertThat(consolidate(ALICE).get("buckets").get(0).get("status").asString())
        .isEqualTo("invalid_answer");
    assertThat(bytes(personal(ALICE, "MEMORY.md"))).isEqualTo(before);
  }

  @Test
  void aBucketBelowTheMinimumIsNotSentToTheModel() {
    open();
    writePersonal(ALICE, "MEMORY.md", EIGHT_ENTRIES.replace("- Use PostgreSQL\n", ""));

    JsonNode run = consolidate(ALICE);

    assertThat(model.calls()).isEmpty();
    assertThat(run.get("buckets").get(0).get("status").asString()).isEqualTo("below_minimum");
    assertThat(run.get("entriesBefore").asInt()).isEqualTo(7);
    assertThat(run.get("entriesAfter").asInt()).isEqualTo(7);
    assertThat(personal(ALICE, "DREAMS.md")).doesNotExist();
  }

  @Test
  void withoutAChatModelTheToolConflictsEvenWithNothingToMerge() {
    open(Map.of(), LanguageModel.none());

    ToolException failure = catchThrowableOfType(ToolException.class, () -> consolidate(null));

    assertThat(failure.kind()).isEqualTo(ToolException.Kind.CONFLICT);
    assertThat(failure.getMessage())
        .isEqualTo("no chat model configured (set memstack.models.chat)");
  }

  @Test
  void aRunWithoutAnOwnerTakesTheTeamAndTheNextOwnersEachTime() {
    open(Map.of("structured-consolidation-max-owners-per-run", "1"), model);
    writePersonal(ALICE, "MEMORY.md", EIGHT_ENTRIES);
    writePersonal(BOB, "MEMORY.md", EIGHT_ENTRIES);
    String shorter =
        answer("merged", List.of("Billing service in Kotlin"), List.of("Database: PostgreSQL 15"));
    model.answer(shorter).answer(shorter);

    JsonNode first = consolidate(null);
    assertThat(first.get("ownersConsolidated").asInt()).isEqualTo(1);
    assertThat(first.get("buckets").get(0).get("scope").asString()).isEqualTo("team");
    assertThat(first.get("buckets").get(1).get("ownerKey").asString()).isEqualTo("user:1");
    assertThat(read(personal(ALICE, "MEMORY.md"))).doesNotContain("Deploy with Helm");
    assertThat(read(personal(BOB, "MEMORY.md"))).contains("Deploy with Helm");

    JsonNode second = consolidate(null);
    assertThat(second.get("buckets").get(1).get("ownerKey").asString()).isEqualTo("user:2");
    assertThat(read(personal(BOB, "MEMORY.md"))).doesNotContain("Deploy with Helm");
    assertThat(second.get("entriesBefore").asInt())
        .as("team (template PROFILE.md entries) and Bob's 8")
        .isEqualTo(second.get("buckets").get(0).get("entriesBefore").asInt() + 8);
  }

  @Test
  void theScheduleRunsAtHalfPastThreeIndependentlyOfDreaming() {
    open(Map.of("emergence-enabled", "false"), model);
    writePersonal(ALICE, "MEMORY.md", EIGHT_ENTRIES);
    StructuredConsolidation consolidation = ConsolidationAcrossHostsTest.consolidation(provider);
    assertThat(consolidation.tick()).isZero();
    assertThat(consolidation.nextRun(AGENT)).contains(Instant.parse("2026-04-02T03:30:00Z"));

    clock.set(Instant.parse("2026-04-02T03:30:01Z"));
    assertThat(consolidation.tick()).isEqualTo(1);
    assertThat(consolidation.lastRun(AGENT).orElseThrow().trigger()).isEqualTo("scheduled");
    assertThat(model.calls()).hasSize(1);
    assertThat(consolidation.tick()).as("once per slot").isZero();
  }
}
