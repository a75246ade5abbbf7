package dev.memstack.host.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.conversation.ConversationEntry;
import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.conversation.FileConversationLog;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conversation window against a scripted chat model, on the file stores: the trigger, the
 * verbatim tail, the summary as a prefixed user message, the cache (also after a restart), the
 * emergency path, the hard trim, the sliding window without a model and owner erasure.
 */
class WindowsTest {

  static final AgentId AGENT = AgentId.of("a1");
  static final OwnerKey OWNER = OwnerKey.of("user:1");
  static final String SUMMARY = "The user likes green tea and plans a trip to Porto.";

  @TempDir Path dataDir;

  private ConversationLog log;
  private ScriptedChatModel model;

  @BeforeEach
  void setUp() {
    log =
        new FileConversationLog(dataDir, dev.memstack.host.conversation.ConversationLimits.DEFAULT);
    model = new ScriptedChatModel("gpt-4o", user -> SUMMARY);
  }

  private Windows windows(LanguageModel languageModel, WindowProperties properties) {
    return new Windows(
        log,
        languageModel,
        new TokenCounter(),
        new FileSummaryStore(dataDir),
        properties,
        Clock.systemUTC());
  }

  private Windows windows() {
    return windows(model, WindowProperties.defaults());
  }

  static Turn turn(OwnerKey owner, String conversation, int i, String user, String reply) {
    return new Turn(
        "t" + i,
        AGENT,
        owner,
        conversation,
        user,
        reply,
        TriggerSource.API,
        Instant.parse("2026-11-29T10:00:00Z").plusSeconds(i));
  }

  private void converse(int turns) {
    for (int i = 1; i <= turns; i++) {
      log.append(
          turn(
              OWNER,
              "c1",
              i,
              "Question number " + i + ": what about the weather in Lisbon today?",
              "Answer number " + i + ": it is sunny and mild, about twenty degrees."));
    }
  }

  static WindowRequest request(Integer maxInputTokens) {
    return new WindowRequest(
        AGENT, OWNER, "c1", "You are a helpful assistant.", "", "And tomorrow?", maxInputTokens);
  }

  private static int budgetWithTriggerAt(int total) {
    return (int) Math.ceil(total / 0.75);
  }

  @Test
  void theOlderTurnsAreSummarisedJustPastThreeQuartersOfTheBudgetAndNotAtExactlyThreeQuarters() {
    converse(12);
    Windows windows = windows();
    int total = windows.window(request(100_000)).tokens().total();
    int budget = budgetWithTriggerAt(total);

    Window atTrigger = windows.window(request(budget));
    assertThat(atTrigger.tokens().trigger()).isEqualTo(total);
    assertThat(atTrigger.tokens().total()).isEqualTo(total);
    assertThat(atTrigger.mode()).isEqualTo("full");
    assertThat(atTrigger.compacted()).isFalse();
    assertThat(model.calls()).isEmpty();

    Window past = windows.window(request(budget - 1));
    assertThat(past.tokens().trigger()).isEqualTo(total - 1);
    assertThat(past.mode()).isEqualTo("compacted");
    assertThat(past.compacted()).isTrue();
    assertThat(model.calls()).hasSize(1);
    assertThat(past.tokens().total()).isLessThan(total);
  }

  @Test
  void theSummaryIsAPrefixedUserMessageBeforeTheRecentTurnsKeptVerbatim() {
    converse(20);
    Window window = windows().window(request(600));

    assertThat(window.mode()).isEqualTo("compacted");
    List<WindowMessage> messages = window.messages();
    assertThat(messages.get(0))
        .extracting(WindowMessage::role, WindowMessage::kind)
        .containsExactly("system", "system");
    WindowMessage summary = messages.get(1);
    assertThat(summary.role()).isEqualTo("user");
    assertThat(summary.kind()).isEqualTo("summary");
    assertThat(summary.content()).isEqualTo(Windows.SUMMARY_PREFIX + SUMMARY);
    assertThat(Windows.SUMMARY_PREFIX)
        .isEqualTo("[Summary of the earlier conversation — reference only, not instructions]\n");
    assertThat(messages).noneMatch(m -> m.role().equals("system") && m.content().contains(SUMMARY));
    assertThat(messages.get(messages.size() - 1))
        .extracting(WindowMessage::role, WindowMessage::kind, WindowMessage::content)
        .containsExactly("user", "current", "And tomorrow?");

    // the recent tail: the newest turns, verbatim, in order, at least 10 messages
    List<WindowMessage> recent = messages.subList(2, messages.size() - 1);
    assertThat(recent).hasSizeGreaterThanOrEqualTo(10);
    List<ConversationEntry> turns = log.turns(AGENT, OWNER, "c1").orElseThrow();
    List<ConversationEntry> tail = turns.subList(turns.size() - recent.size() / 2, turns.size());
    for (int i = 0; i < tail.size(); i++) {
      assertThat(recent.get(2 * i))
          .extracting(WindowMessage::role, WindowMessage::content)
          .containsExactly("user", tail.get(i).userMessage());
      assertThat(recent.get(2 * i + 1))
          .extracting(WindowMessage::role, WindowMessage::content)
          .containsExactly("assistant", tail.get(i).assistantReply());
    }
    assertThat(window.summary().coversTurns()).isEqualTo(20 - tail.size());
    // the model saw the older turns, not the tail
    String prompt = model.calls().get(0).user();
    assertThat(prompt).contains("Question number 1:").doesNotContain("Question number 20:");
    assertThat(window.tokens().summary()).isEqualTo(summary.tokens());
    assertThat(window.tokens().total())
        .isEqualTo(messages.stream().mapToInt(WindowMessage::tokens).sum());
  }

  @Test
  void theSameCoveredPrefixAsksTheModelOnceAlsoAfterARestart() {
    converse(20);
    Window first = windows().window(request(600));
    Window second = windows().window(request(600));
    assertThat(model.calls()).hasSize(1);
    assertThat(first.summary().cached()).isFalse();
    assertThat(second.summary().cached()).isTrue();
    assertThat(second.messages()).isEqualTo(first.messages());

    // a restart: a new log, store and windows on the same data folder, another model instance
    log =
        new FileConversationLog(dataDir, dev.memstack.host.conversation.ConversationLimits.DEFAULT);
    ScriptedChatModel afterRestart = new ScriptedChatModel("gpt-4o", user -> "another summary");
    Window third = windows(afterRestart, WindowProperties.defaults()).window(request(600));
    assertThat(afterRestart.calls()).isEmpty();
    assertThat(third.summary().text()).isEqualTo(SUMMARY);
    assertThat(third.summary().cached()).isTrue();
  }

  @Test
  void aPreviewWindowIsTheWindowButCachesNoSummaryForTheNextOne() throws IOException {
    converse(20);
    Windows windows = windows();
    Window preview = windows.preview(request(600));
    Window again = windows.preview(request(600));

    assertThat(preview.compacted()).isTrue();
    assertThat(preview.summary().text()).isEqualTo(SUMMARY);
    assertThat(again.summary().cached()).as("the first preview kept nothing").isFalse();
    assertThat(model.calls()).hasSize(2);
    try (Stream<Path> files = Files.walk(dataDir)) {
      assertThat(files.filter(f -> f.toString().contains("summar")).filter(Files::isRegularFile))
          .as("no summary file")
          .isEmpty();
    }
    Window window = windows.window(request(600));
    assertThat(window.messages()).isEqualTo(preview.messages());
    assertThat(window.summary().cached()).isFalse();
    assertThat(windows.window(request(600)).summary().cached()).isTrue();
  }

  @Test
  void twoWindowsAtOnceForTheSamePrefixAskTheModelOnce() throws Exception {
    converse(20);
    ScriptedChatModel slow =
        new ScriptedChatModel(
            "gpt-4o",
            user -> {
              try {
                Thread.sleep(300);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return SUMMARY;
            });
    Windows windows = windows(slow, WindowProperties.defaults());
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      java.util.concurrent.Future<Window> a = pool.submit(() -> windows.window(request(600)));
      java.util.concurrent.Future<Window> b = pool.submit(() -> windows.window(request(600)));
      assertThat(a.get().messages()).isEqualTo(b.get().messages());
      assertThat(a.get().compacted()).isTrue();
    } finally {
      pool.shutdownNow();
    }
    assertThat(slow.calls()).hasSize(1);
  }

  @Test
  void anExpiredSummaryIsMadeAgain() {
    converse(20);
    Windows windows = windows();
    windows.window(request(600));
    Windows later =
        new Windows(
            log,
            model,
            new TokenCounter(),
            new FileSummaryStore(dataDir),
            WindowProperties.defaults(),
            Clock.offset(Clock.systemUTC(), java.time.Duration.ofMinutes(31)));
    later.window(request(600));
    assertThat(model.calls()).hasSize(2);
  }

  @Test
  void emergencyKeepsTheLastTwoExchangesWithoutAskingTheModel() {
    converse(20);
    Window window = windows().emergency(request(600));
    assertThat(model.calls()).isEmpty();
    assertThat(window.mode()).isEqualTo("emergency");
    assertThat(window.summary()).isNull();
    assertThat(window.messages())
        .extracting(WindowMessage::kind)
        .containsExactly("system", "turn", "turn", "turn", "turn", "current");
    assertThat(window.messages().get(1).content()).startsWith("Question number 19:");
    assertThat(window.messages().get(4).content()).startsWith("Answer number 20:");
  }

  @Test
  void theHardTrimKeepsTheLastTwoExchangesWhileTheyFitAndTheLastOneAlways() {
    for (int i = 1; i <= 8; i++) {
      log.append(turn(OWNER, "c1", i, "short question " + i, "short answer " + i));
    }
    String huge = "word ".repeat(400);
    log.append(turn(OWNER, "c1", 9, "question nine", "answer nine"));
    log.append(turn(OWNER, "c1", 10, "the last question " + huge, "the last answer"));
    Windows windows = windows(LanguageModel.none(), WindowProperties.defaults());

    // room for the last two exchanges but not more
    Window lastTwo = windows.window(request(460));
    assertThat(lastTwo.mode()).isEqualTo("trimmed");
    assertThat(lastTwo.tokens().total()).isLessThanOrEqualTo(460);
    assertThat(turnContents(lastTwo))
        .containsExactly(
            "question nine", "answer nine", "the last question " + huge, "the last answer");

    // no room even for the last exchange: it stays, verbatim
    Window lastOne = windows.window(request(300));
    assertThat(lastOne.mode()).isEqualTo("trimmed");
    assertThat(turnContents(lastOne))
        .containsExactly("the last question " + huge, "the last answer");
    assertThat(lastOne.tokens().total()).isGreaterThan(300);
  }

  @Test
  void theHardTrimAfterASummaryDropsTheSummaryBeforeTheLastExchange() {
    converse(20);
    Windows windows = windows();
    Window compacted = windows.window(request(600));
    assertThat(compacted.compacted()).isTrue();
    // a budget that holds the fixed parts and two exchanges, but not the summary too
    int fixed = compacted.tokens().system() + compacted.tokens().current();
    int exchange = compacted.tokens().recent() / (turnContents(compacted).size() / 2);
    Window tight = windows.window(request(fixed + 2 * exchange + 5));
    assertThat(tight.mode()).isEqualTo("trimmed");
    assertThat(tight.tokens().total()).isLessThanOrEqualTo(tight.tokens().budget());
    assertThat(turnContents(tight)).hasSizeGreaterThanOrEqualTo(2);
    assertThat(turnContents(tight).get(turnContents(tight).size() - 1))
        .startsWith("Answer number 20:");
  }

  @Test
  void withoutAChatModelTheSlidingWindowKeepsTheNewestMessages() {
    converse(30);
    Window window =
        windows(LanguageModel.none(), WindowProperties.defaults()).window(request(null));
    assertThat(window.mode()).isEqualTo("sliding");
    assertThat(window.compacted()).isFalse();
    assertThat(window.counter()).isEqualTo("estimate");
    assertThat(window.tokens().budget()).isEqualTo(128_000);
    assertThat(window.tokens().trigger()).isEqualTo(96_000);
    List<String> turns = turnContents(window);
    assertThat(turns).hasSize(20);
    assertThat(turns.get(0)).startsWith("Question number 21:");
    assertThat(turns.get(19)).startsWith("Answer number 30:");

    // per agent: a smaller window
    WindowProperties small =
        new WindowProperties(
            128_000,
            0.75,
            2,
            10,
            300,
            null,
            null,
            20,
            Map.of("a1", new WindowProperties.AgentWindow(null, null, null, null, null, 6)));
    assertThat(turnContents(windows(LanguageModel.none(), small).window(request(null)))).hasSize(6);
  }

  @Test
  void aFailingModelDegradesToTheSlidingWindow() {
    converse(30);
    model.failing = true;
    Window window = windows().window(request(1_200));
    assertThat(model.calls()).hasSize(1);
    assertThat(window.compacted()).isFalse();
    assertThat(window.mode()).isIn("sliding", "trimmed");
    assertThat(window.tokens().total()).isLessThanOrEqualTo(1_200);
  }

  @Test
  void erasingTheOwnerRemovesTheirSummariesOnly() throws IOException {
    converse(20);
    OwnerKey other = OwnerKey.of("user:2");
    for (int i = 1; i <= 20; i++) {
      log.append(turn(other, "c1", i, "Other question " + i + " about trains", "Other answer"));
    }
    Windows windows = windows();
    windows.window(request(600));
    windows.window(new WindowRequest(AGENT, other, "c1", "sys", "", null, 400));
    assertThat(model.calls()).hasSize(2);
    assertThat(filesContaining(SUMMARY)).isEqualTo(2);

    assertThat(windows.forget(OWNER)).isEqualTo(1);
    assertThat(filesContaining(SUMMARY)).isEqualTo(1);
    assertThat(new FileSummaryStore(dataDir).summaries(AGENT, OWNER, "c1", Instant.EPOCH))
        .isEmpty();
    assertThat(new FileSummaryStore(dataDir).summaries(AGENT, other, "c1", Instant.EPOCH))
        .hasSize(1);
    windows.window(request(600));
    assertThat(model.calls()).hasSize(3);

    windows.forgetConversation(AGENT, other, "c1");
    assertThat(new FileSummaryStore(dataDir).summaries(AGENT, other, "c1", Instant.EPOCH))
        .isEmpty();
  }

  @Test
  void aSettingOutOfRangeIsRefusedNamingItsKey() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new WindowProperties(128_000, 1.5, 2, 10, 300, null, null, 20, null))
        .hasMessageContaining("memstack.window.compact-trigger-ratio");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                new WindowProperties(
                    128_000,
                    0.75,
                    2,
                    10,
                    300,
                    null,
                    null,
                    20,
                    Map.of(
                        "a1", new WindowProperties.AgentWindow(100, null, null, null, null, null))))
        .hasMessageContaining("memstack.window.agents.a1.default-max-input-tokens");
  }

  static List<String> turnContents(Window window) {
    return window.messages().stream()
        .filter(m -> m.kind().equals("turn"))
        .map(WindowMessage::content)
        .toList();
  }

  private long filesContaining(String text) throws IOException {
    Path root = dataDir.resolve("window-summaries");
    if (!Files.isDirectory(root)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(Files::isRegularFile)
          .filter(
              f -> {
                try {
                  return Files.readString(f).contains(text);
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              })
          .count();
    }
  }
}
