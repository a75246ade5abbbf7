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
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.HeldLanguageModel;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.TestProviderContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Post-turn extraction and dreaming of the builtin provider against a scripted chat model: the
 * gates, the cooldown and the lock, robust parsing, the caps, the DREAMS.md journal and its cap,
 * and the schedule on a fake clock.
 */
class MemoryJobsTest {

  private static final Instant START = Instant.parse("2026-04-01T09:30:00Z");
  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey ALICE = OwnerKey.of("user:1");
  private static final OwnerKey BOB = OwnerKey.of("user:2");
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String PROFILE_ANSWER =
      "```json\n{\"should_update\": true, \"reason\": \"the user named a favourite language\","
          + " \"daily_entry\": \"- Talked about Kotlin.\", \"memory_update\": \"\","
          + " \"profile_update\": \"# Profile\\n\\n## Preferences\\n- Favourite language:"
          + " Kotlin\"}\n```";

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

  private MemoryProvider open(Map<String, String> config, LanguageModel languageModel) {
    Map<String, String> all = new HashMap<>(Map.of("schedule-check-interval", "1h"));
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
    return provider;
  }

  private MemoryProvider open() {
    return open(Map.of(), model);
  }

  private static Turn turn(OwnerKey owner, String conversation, String user, TriggerSource source) {
    return new Turn(
        UUID.randomUUID().toString(),
        AGENT,
        owner,
        conversation,
        user,
        "Noted: " + user,
        source,
        START);
  }

  private void twoTurns(OwnerKey owner, String conversation) {
    provider.syncTurn(
        turn(owner, conversation, "Hello, I am planning a new service", TriggerSource.WEB));
    provider.syncTurn(
        turn(owner, conversation, "My favourite language is Kotlin", TriggerSource.WEB));
  }

  private Path personal(OwnerKey owner, String file) {
    return dir.resolve("agents")
        .resolve(AGENT.value())
        .resolve("owners")
        .resolve(OwnerDirectoryName.encode(owner))
        .resolve(file);
  }

  private String personalFile(OwnerKey owner, String file) {
    return readTool(owner, file, "personal");
  }

  private String teamFile(String file) {
    return readTool(null, file, "team");
  }

  private String readTool(OwnerKey owner, String file, String scope) {
    try {
      JsonNode answer =
          tool(owner, "read_workspace_memory_file", Map.of("filename", file, "scope", scope));
      return answer.get("content").asString();
    } catch (ToolException e) {
      if (e.kind() == ToolException.Kind.NOT_FOUND) {
        return "";
      }
      throw e;
    }
  }

  private JsonNode tool(OwnerKey owner, String name, Map<String, ?> arguments) {
    return JSON.readTree(
        provider.callTool(new ToolCall(AGENT, owner, name, JSON.writeValueAsString(arguments))));
  }

  private static void eventually(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static void quietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------- extraction

  @Test
  void afterFourMessagesTheOwnersProfileHoldsWhatTheModelExtracted() {
    model.answer(PROFILE_ANSWER);
    open();

    twoTurns(ALICE, "c1");

    eventually(() -> personalFile(ALICE, "PROFILE.md").contains("Kotlin"), "PROFILE.md is written");
    assertThat(personalFile(BOB, "PROFILE.md")).doesNotContain("Kotlin");
    assertThat(teamFile("PROFILE.md")).doesNotContain("Kotlin");
    eventually(
        () -> personalFile(ALICE, "memory/2026-04-01.md").contains("Talked about Kotlin"),
        "the daily entry is appended");
    assertThat(model.calls()).hasSize(1);
    ScriptedLanguageModel.Call call = model.calls().get(0);
    assertThat(call.system()).contains("PROFILE.md");
    assertThat(call.user())
        .contains("User: My favourite language is Kotlin")
        .contains("Assistant: Noted: Hello, I am planning a new service")
        .contains("2026-04-01");
  }

  @Test
  void theGatesKeepTheModelOutOfShortAndScheduledConversations() {
    open();
    provider.syncTurn(
        turn(ALICE, "one-turn", "My favourite language is Kotlin", TriggerSource.WEB));
    provider.syncTurn(turn(ALICE, "short", "Hello there, a long first one", TriggerSource.WEB));
    provider.syncTurn(turn(ALICE, "short", "ok", TriggerSource.WEB));
    provider.syncTurn(turn(ALICE, "cron", "Nightly report about everything", TriggerSource.CRON));
    provider.syncTurn(turn(ALICE, "cron", "Nightly report about everything", TriggerSource.CRON));
    quietly(300);

    assertThat(model.calls()).as("2 messages, a 2-character last message, cron turns").isEmpty();
  }

  @Test
  void autoSummarizeCanBeSwitchedOff() {
    open(Map.of("auto-summarize-enabled", "false"), model);
    twoTurns(ALICE, "c1");
    quietly(300);

    assertThat(model.calls()).isEmpty();
  }

  @Test
  void aCooldownPerOwnerHoldsBackTheNextRunUntilItPassed() {
    model.answer(PROFILE_ANSWER).answer(PROFILE_ANSWER).answer(PROFILE_ANSWER);
    open();
    twoTurns(ALICE, "c1");
    eventually(() -> model.calls().size() == 1, "the first run");

    provider.syncTurn(turn(ALICE, "c1", "And I also like Rust quite a lot", TriggerSource.WEB));
    twoTurns(BOB, "c2");
    eventually(() -> model.calls().size() == 2, "bob's run, another owner");
    quietly(300);
    assertThat(model.calls()).as("alice is cooling down").hasSize(2);

    clock.advance(Duration.ofMinutes(6));
    provider.syncTurn(turn(ALICE, "c1", "And I also like Rust quite a lot", TriggerSource.WEB));
    eventually(() -> model.calls().size() == 3, "alice's run after the cooldown");
  }

  @Test
  void aRunInProgressMakesTheNextOneSkipInsteadOfWaiting() throws Exception {
    model.stall(Duration.ofSeconds(2)).answer(PROFILE_ANSWER);
    open(Map.of("model-timeout", "10s"), model);
    twoTurns(ALICE, "c1");
    assertThat(model.entered.await(10, TimeUnit.SECONDS)).isTrue();

    long started = System.nanoTime();
    JsonNode manual = tool(ALICE, "summarize_conversation", Map.of("conversationId", "c1"));

    assertThat(manual.get("status").asString()).isEqualTo("skipped");
    assertThat(manual.get("reason").asString()).contains("is running");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
  }

  @Test
  void aManualRunIgnoresTheCooldownAndReadsProseAroundTheJson() {
    model
        .answer(PROFILE_ANSWER)
        .answer(
            "Here is what I found:\n{\"should_update\": true, \"reason\": \"a project\","
                + " \"memory_update\": \"# Memory\\n\\n## Projects\\n- A new service\"}\nDone.");
    open();
    twoTurns(ALICE, "c1");
    eventually(() -> personalFile(ALICE, "PROFILE.md").contains("Kotlin"), "the automatic run");

    JsonNode answer = tool(ALICE, "summarize_conversation", Map.of("conversationId", "c1"));
    for (int i = 0; i < 100 && answer.get("status").asString().equals("skipped"); i++) {
      quietly(20); // the automatic run is finishing its writes
      answer = tool(ALICE, "summarize_conversation", Map.of("conversationId", "c1"));
    }

    assertThat(answer.get("status").asString()).isEqualTo("updated");
    assertThat(answer.get("written").toString()).contains("MEMORY.md");
    assertThat(personalFile(ALICE, "MEMORY.md")).contains("A new service");
  }

  @Test
  void anAnswerWithoutJsonChangesNothing() {
    model.answer("I am sorry, I cannot produce JSON today.");
    open();
    provider.syncTurn(turn(ALICE, "c1", "Hello, I am planning a new service", TriggerSource.WEB));

    JsonNode answer = tool(ALICE, "summarize_conversation", Map.of("conversationId", "c1"));

    assertThat(answer.get("status").asString()).isEqualTo("invalid_answer");
    assertThat(Files.exists(personal(ALICE, "PROFILE.md"))).isFalse();
    assertThat(Files.exists(personal(ALICE, "MEMORY.md"))).isFalse();
  }

  @Test
  void aModelThatStallsPastTheTimeoutFailsTheCallAndChangesNothing() {
    model.stall(Duration.ofSeconds(10));
    open(Map.of("model-timeout", "300ms"), model);
    provider.syncTurn(turn(ALICE, "c1", "Hello, I am planning a new service", TriggerSource.WEB));

    ToolException failure =
        catchThrowableOfType(
            ToolException.class,
            () -> tool(ALICE, "summarize_conversation", Map.of("conversationId", "c1")));

    assertThat(failure.kind()).isEqualTo(ToolException.Kind.UNAVAILABLE);
    assertThat(failure.getMessage()).contains("did not answer within");
    assertThat(Files.exists(personal(ALICE, "PROFILE.md"))).isFalse();
  }

  @Test
  void aProfileLongerThanItsCapIsCutAtASectionWithAMarker() throws IOException {
    StringBuilder profile = new StringBuilder("# Profile\\n");
    for (int i = 0; i < 40; i++) {
      profile.append("\\n## Section ").append(i).append("\\n").append("x".repeat(60));
    }
    model.answer(
        "{\"should_update\": true, \"reason\": \"long\", \"profile_update\": \"" + profile + "\"}");
    open(Map.of("profile-max-chars", "1000"), model);
    provider.syncTurn(turn(ALICE, "c1", "Hello, I am planning a new service", TriggerSource.WEB));

    JsonNode answer = tool(ALICE, "summarize_conversation", Map.of("conversationId", "c1"));

    assertThat(answer.get("truncated").toString()).contains("PROFILE.md");
    String written = Files.readString(personal(ALICE, "PROFILE.md"), StandardCharsets.UTF_8);
    assertThat(written.length()).isLessThanOrEqualTo(1000);
    assertThat(written).contains("## Section 0").contains("was cut to its 1000-character cap");
  }

  @Test
  void theTranscriptKeepsTheNewestMessagesEachCutWithAMarker() {
    open(Map.of("max-transcript-messages", "3", "transcript-message-max-chars", "100"), model);
    for (int i = 0; i < 3; i++) {
      provider.syncTurn(
          turn(ALICE, "c1", "message number " + i + " " + "y".repeat(200), TriggerSource.API));
    }

    tool(ALICE, "summarize_conversation", Map.of("conversationId", "c1"));

    String prompt = model.calls().get(model.calls().size() - 1).user();
    String user = prompt.substring(prompt.indexOf("The conversation"));
    assertThat(user).doesNotContain("message number 0").doesNotContain("User: message number 1");
    assertThat(user).contains("User: message number 2").contains("... [truncated]");
  }

  /**
   * Runs a memory job of ALICE's through {@code tool} while the model holds it, erases ALICE while
   * it waits, then lets the model answer: returns the job's answer.
   */
  private JsonNode erasedWhileTheModelWorks(
      HeldLanguageModel held, String tool, Map<String, ?> arguments) throws Exception {
    open(Map.of("auto-summarize-enabled", "false"), held);
    twoTurns(ALICE, "c1");
    twoTurns(BOB, "c1");
    assertThat(Files.exists(personal(ALICE, "memory"))).isTrue();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<JsonNode> job = pool.submit(() -> tool(ALICE, tool, arguments));
      assertThat(held.awaitHeldCall(Duration.ofSeconds(10))).as("the model was asked").isTrue();
      assertThat(provider.forget(ALICE)).isPositive();
      held.release();
      return job.get(10, TimeUnit.SECONDS);
    } finally {
      held.release();
      pool.shutdownNow();
    }
  }

  @Test
  void anExtractionWhoseOwnerIsErasedWhileTheModelWorksWritesNothing() throws Exception {
    JsonNode answer =
        erasedWhileTheModelWorks(
            HeldLanguageModel.answering(PROFILE_ANSWER),
            "summarize_conversation",
            Map.of("conversationId", "c1"));

    assertThat(answer.get("status").asString()).isEqualTo("erased");
    assertThat(answer.get("written")).isEmpty();
    assertThat(personal(ALICE, "")).doesNotExist();
    assertThat(personalFile(BOB, "memory/2026-04-01.md")).contains("Kotlin");
  }

  @Test
  void aDreamWhoseOwnerIsErasedWhileTheModelWorksWritesNothing() throws Exception {
    JsonNode run =
        erasedWhileTheModelWorks(
            HeldLanguageModel.answering(
                "{\"should_update\": true, \"reason\": \"Kotlin came up\", \"memory_content\":"
                    + " \"# Memory\\n\\n## Stable\\n- Plans a Kotlin service\"}"),
            "run_emergence",
            Map.of("ownerKey", ALICE.value()));

    assertThat(run.get("buckets").get(0).get("status").asString()).isEqualTo("erased");
    assertThat(personal(ALICE, "")).doesNotExist();
  }

  // ---------------------------------------------------------------- dreaming

  @Test
  void aManualEmergenceReplacesMemoryAndJournalsADatedEntry() {
    model.answer(
        "{\"should_update\": true, \"reason\": \"Kotlin came up every day\", \"memory_content\":"
            + " \"# Memory\\n\\n## Stable\\n- Team builds in Kotlin\"}");
    open();

    JsonNode run = tool(null, "run_emergence", Map.of());

    assertThat(run.get("status").asString()).isEqualTo("completed");
    assertThat(teamFile("MEMORY.md")).contains("Team builds in Kotlin");
    String dreams = teamFile("DREAMS.md");
    assertThat(dreams)
        .contains("## 2026-04-01 09:30 · team · manual")
        .contains("- Patterns: Kotlin came up every day")
        .contains("- Changed: MEMORY.md replaced");
    JsonNode status = tool(null, "dreaming_status", Map.of());
    assertThat(status.get("newestEntry").asString()).contains("2026-04-01 09:30");
    assertThat(status.get("lastRun").get("trigger").asString()).isEqualTo("manual");
    assertThat(status.get("nextRun").asString()).isEqualTo("2026-04-02T03:00:00Z");
  }

  @Test
  void dreamingReadsTheOwnersRecentDailyNotesAndReplacesTheirMemory() {
    open();
    provider.syncTurn(
        turn(ALICE, "c1", "We ship the billing service on Friday", TriggerSource.WEB));
    model.answer(
        "{\"should_update\": true, \"reason\": \"shipping\", \"memory_content\": \"## Plans\\n-"
            + " Billing ships Friday\"}");

    JsonNode run = tool(ALICE, "run_emergence", Map.of());

    assertThat(run.get("buckets").get(0).get("scope").asString()).isEqualTo("personal");
    assertThat(model.calls().get(0).user())
        .contains("### memory/2026-04-01.md")
        .contains("We ship the billing service on Friday");
    assertThat(personalFile(ALICE, "MEMORY.md")).contains("Billing ships Friday");
    assertThat(personalFile(BOB, "MEMORY.md")).doesNotContain("Billing");
    assertThat(personalFile(ALICE, "DREAMS.md")).contains("personal user:1 · manual");
  }

  @Test
  void dreamsMdStaysUnderItsCapByCondensingOlderEntries() {
    open(Map.of("dreams-max-chars", "2000"), model);
    for (int i = 0; i < 20; i++) {
      model.answer(
          "{\"should_update\": false, \"reason\": \"run " + i + " " + "z".repeat(150) + "\"}");
      tool(null, "run_emergence", Map.of());
      clock.advance(Duration.ofDays(1));
    }

    String dreams = teamFile("DREAMS.md");
    assertThat(dreams.length()).isLessThanOrEqualTo(2000);
    assertThat(dreams).contains(DreamsJournal.CONDENSED).contains("run 19 ");
    assertThat(DreamsJournal.newest(dreams)).contains("run 19 ").startsWith("## 2026-04-20");
    assertThat(dreams).doesNotContain("run 0 ");
  }

  @Test
  void theScheduleRunsEachAgentWhenTheClockPassesThreeOClock() {
    open();
    provider.syncTurn(
        turn(ALICE, "c1", "We ship the billing service on Friday", TriggerSource.WEB));
    Dreaming dreaming = dreaming();
    model.answer(
        "{\"should_update\": true, \"reason\": \"plans\", \"memory_content\": \"## Plans\\n-"
            + " Billing\"}");

    assertThat(dreaming.tick()).as("09:30, first look: next run at 03:00").isZero();
    clock.set(Instant.parse("2026-04-02T02:59:00Z"));
    assertThat(dreaming.tick()).isZero();
    clock.set(Instant.parse("2026-04-02T03:00:05Z"));
    assertThat(dreaming.tick()).isEqualTo(1);
    assertThat(dreaming.tick()).as("once per night").isZero();

    assertThat(teamFile("DREAMS.md")).contains("## 2026-04-02 03:00 · team · scheduled");
    assertThat(personalFile(ALICE, "MEMORY.md")).contains("Billing");
    assertThat(dreaming.nextRun(AGENT)).contains(Instant.parse("2026-04-03T03:00:00Z"));
  }

  @Test
  void withoutAChatModelTheToolsConflictAndTheScheduleDoesNothing() {
    open(Map.of(), LanguageModel.none());
    twoTurns(ALICE, "c1");

    for (String name :
        new String[] {"summarize_conversation", "run_emergence", "dreaming_status"}) {
      Map<String, String> args =
          name.startsWith("summarize") ? Map.of("conversationId", "c1") : Map.of();
      ToolException failure =
          catchThrowableOfType(ToolException.class, () -> tool(ALICE, name, args));
      assertThat(failure.kind()).as(name).isEqualTo(ToolException.Kind.CONFLICT);
      assertThat(failure.getMessage()).isEqualTo("no chat model configured");
    }
    clock.set(Instant.parse("2026-04-05T03:00:00Z"));
    assertThat(dreaming().tick()).isZero();
    assertThat(dreaming().nextRun(AGENT)).isEmpty();
    assertThat(personalFile(ALICE, "memory/2026-04-01.md")).contains("favourite language");
  }

  @Test
  void forgettingAnOwnerAlsoErasesTheirConversations() {
    open();
    twoTurns(ALICE, "c1");
    Path conversations = dir.resolve("conversations").resolve("a1");
    assertThat(conversations.resolve(OwnerDirectoryName.encode(ALICE))).isDirectory();

    provider.forget(ALICE);

    assertThat(conversations.resolve(OwnerDirectoryName.encode(ALICE))).doesNotExist();
  }

  @Test
  void manyTurnsAtOnceReturnQuicklyWhileExtractionRunsOffPath() throws Exception {
    model.stall(Duration.ofSeconds(3));
    open(Map.of("model-timeout", "5s"), model);
    ExecutorService sync = Executors.newSingleThreadExecutor();
    CountDownLatch done = new CountDownLatch(1);
    Future<?> future =
        sync.submit(
            () -> {
              twoTurns(ALICE, "c1");
              done.countDown();
            });
    try {
      assertThat(done.await(2, TimeUnit.SECONDS))
          .as("syncTurn does not wait for the model")
          .isTrue();
      future.get();
    } finally {
      sync.shutdownNow();
    }
  }

  private Dreaming dreaming() {
    try {
      var field = provider.getClass().getDeclaredField("dreaming");
      field.setAccessible(true);
      return (Dreaming) field.get(provider);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
