package dev.memstack.builtin.extraction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.builtin.BuiltinMemoryProviderFactory;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.TestProviderContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The structured dreaming reports, the morning card and the owner's answers to it, against a
 * scripted chat model: a night's run makes a report and a card; confirm, edit and forget each
 * change exactly the item named; a forget leaves no trace of the text in memory, reports, archives
 * or DREAMS.md; old reports roll into a compressed archive and stay readable; all per owner.
 */
class DreamReportsTest {

  private static final Instant NIGHT = Instant.parse("2026-04-01T03:00:00Z");
  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey ALICE = OwnerKey.of("user:1");
  private static final OwnerKey BOB = OwnerKey.of("user:2");
  private static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at(NIGHT);
  private final ScriptedLanguageModel model = new ScriptedLanguageModel();
  private MemoryProvider provider;

  @AfterEach
  void close() {
    if (provider != null) {
      provider.close();
    }
  }

  private void open(LanguageModel languageModel) {
    Map<String, String> config = new HashMap<>(Map.of("schedule-check-interval", "1h"));
    provider =
        new BuiltinMemoryProviderFactory()
            .create(
                TestProviderContext.builder()
                    .instanceId("builtin")
                    .config(config)
                    .dataDir(dir)
                    .clock(clock)
                    .languageModel(languageModel)
                    .build());
  }

  private JsonNode tool(OwnerKey owner, String name, Map<String, ?> arguments) {
    return JSON.readTree(
        provider.callTool(new ToolCall(AGENT, owner, name, JSON.writeValueAsString(arguments))));
  }

  private String file(OwnerKey owner, String name) {
    try {
      return tool(
              owner, "read_workspace_memory_file", Map.of("filename", name, "scope", "personal"))
          .get("content")
          .asString();
    } catch (ToolException e) {
      return "";
    }
  }

  /** One owner's night: a note, then a dream that replaces MEMORY.md with {@code memory}. */
  private void night(OwnerKey owner, String note, String memory) {
    provider.syncTurn(
        new Turn(
            UUID.randomUUID().toString(),
            AGENT,
            owner,
            "c1",
            note,
            "Noted.",
            TriggerSource.WEB,
            clock.instant()));
    model.answer(
        JSON.writeValueAsString(
            Map.of("should_update", true, "reason", "new plans", "memory_content", memory)));
    tool(owner, "run_emergence", Map.of());
  }

  @Test
  void aNightsRunMakesAReportAndTheNextMorningsCardForThatOwnerOnly() {
    open(model);
    night(ALICE, "We ship billing on Friday", "## Plans\n- Billing ships Friday\n- Alice leads it");

    clock.set(NIGHT.plus(Duration.ofHours(20)));
    assertThat(tool(ALICE, "dream_morning_card", Map.of()).get("items")).isEmpty(); // same day
    clock.set(NIGHT.plus(Duration.ofDays(1)));
    JsonNode card = tool(ALICE, "dream_morning_card", Map.of());
    assertThat(card.get("date").asString()).isEqualTo("2026-04-01");
    assertThat(card.get("items"))
        .extracting(i -> i.get("text").asString())
        .containsExactly("Billing ships Friday", "Alice leads it");
    assertThat(card.get("items"))
        .allSatisfy(i -> assertThat(i.get("status").asString()).isEqualTo("pending"));
    assertThat(tool(BOB, "dream_morning_card", Map.of()).get("items")).isEmpty();

    JsonNode reports = tool(ALICE, "dream_reports", Map.of()).get("reports");
    assertThat(reports).hasSize(1);
    JsonNode report = reports.get(0);
    assertThat(report.get("trigger").asString()).isEqualTo("manual");
    assertThat(report.get("patterns").asString()).isEqualTo("new plans");
    assertThat(report.get("read").asString()).contains("memory/2026-04-01.md");
    assertThat(report.get("changes").get(0).get("file").asString()).isEqualTo("MEMORY.md");
    assertThat(report.get("changes").get(0).get("after").asString())
        .contains("Billing ships Friday");
    // the card in another zone: still the day of the run there
    JsonNode tokyo =
        tool(ALICE, "dream_morning_card", Map.of("zone", "Asia/Tokyo", "date", "2026-04-01"));
    assertThat(tokyo.get("items")).hasSize(2);
  }

  @Test
  void confirmEditAndForgetEachChangeExactlyTheItemNamed() throws IOException {
    open(model);
    night(
        ALICE,
        "Plans for the quarter",
        "## Plans\n- Billing ships Friday\n- Alice leads it\n- The budget is 40k");
    night(BOB, "Bob's plans", "## Plans\n- Billing ships Friday");
    clock.set(NIGHT.plus(Duration.ofDays(1)));
    JsonNode items = tool(ALICE, "dream_morning_card", Map.of()).get("items");
    String report = items.get(0).get("reportId").asString();

    JsonNode confirmed =
        tool(
            ALICE,
            "resolve_card_item",
            Map.of("reportId", report, "index", 0, "action", "confirm"));
    assertThat(confirmed.get("item").get("status").asString()).isEqualTo("confirmed");
    tool(
        ALICE,
        "resolve_card_item",
        Map.of("reportId", report, "index", 1, "action", "edit", "text", "Carol leads it"));
    String budget =
        tool(ALICE, "list_memories", Map.of("text", "40k"))
            .get("items")
            .get(0)
            .get("id")
            .asString();
    tool(ALICE, "resolve_card_item", Map.of("reportId", report, "index", 2, "action", "forget"));

    String memory = file(ALICE, "MEMORY.md");
    assertThat(memory).contains("- Billing ships Friday").contains("- Carol leads it");
    assertThat(memory).doesNotContain("Alice leads it").doesNotContain("40k");
    JsonNode card = tool(ALICE, "dream_morning_card", Map.of()).get("items");
    assertThat(card)
        .extracting(i -> i.get("text").asString() + "/" + i.get("status").asString())
        .containsExactly("Billing ships Friday/confirmed", "Carol leads it/edited");
    // forget means forget: the text is nowhere in the owner's files any more
    assertThat(tool(ALICE, "dream_reports", Map.of()).toString()).doesNotContain("40k");
    assertThat(file(ALICE, "DREAMS.md")).doesNotContain("40k");
    assertThat(filesHolding("40k")).isEmpty();
    JsonNode history = tool(ALICE, "memory_history", Map.of("id", budget));
    assertThat(history.get("forgotten").asBoolean()).as("history: %s", history).isTrue();
    // another owner's card and memory are untouched
    assertThat(file(BOB, "MEMORY.md")).contains("Billing ships Friday");
    assertThat(
            tool(BOB, "dream_morning_card", Map.of()).get("items").get(0).get("status").asString())
        .isEqualTo("pending");
    // an item forgotten cannot be answered again; another owner cannot answer alice's
    ToolException again =
        catchThrowableOfType(
            ToolException.class,
            () ->
                tool(
                    ALICE,
                    "resolve_card_item",
                    Map.of("reportId", report, "index", 2, "action", "confirm")));
    assertThat(again.kind()).isEqualTo(ToolException.Kind.CONFLICT);
    ToolException other =
        catchThrowableOfType(
            ToolException.class,
            () ->
                tool(
                    BOB,
                    "resolve_card_item",
                    Map.of("reportId", report, "index", 0, "action", "forget")));
    assertThat(other.kind()).isEqualTo(ToolException.Kind.NOT_FOUND);
    assertThat(file(ALICE, "MEMORY.md")).contains("Billing ships Friday");
  }

  @Test
  void oldReportsRollIntoACompressedArchiveThatStaysReadableAndForgettable() throws IOException {
    open(model);
    night(ALICE, "March plans", "## Plans\n- The launch code is zebra-42");
    clock.set(NIGHT.plus(Duration.ofDays(40)));
    night(ALICE, "May plans", "## Plans\n- The launch code is zebra-42\n- Docs are due");

    String april = file(ALICE, "dreams/2026-04.md");
    assertThat(april).contains("## Archived (gzip, base64)");
    assertThat(april).doesNotContain("zebra-42"); // compressed
    JsonNode reports = tool(ALICE, "dream_reports", Map.of()).get("reports");
    assertThat(reports).hasSize(2);
    assertThat(reports.get(1).get("items").get(0).get("text").asString())
        .isEqualTo("The launch code is zebra-42");

    tool(
        ALICE,
        "resolve_card_item",
        Map.of("reportId", reports.get(1).get("id").asString(), "index", 0, "action", "forget"));
    assertThat(tool(ALICE, "dream_reports", Map.of()).toString()).doesNotContain("zebra-42");
    assertThat(file(ALICE, "MEMORY.md")).doesNotContain("zebra-42");
  }

  @Test
  void erasingAnOwnerRemovesTheirReportsAndNobodyElses() throws IOException {
    open(model);
    night(ALICE, "Kickoff", "## Plans\n- The vault code is 7741");
    night(BOB, "Kickoff", "## Plans\n- Bob's locker is 12");
    assertThat(tool(ALICE, "dream_reports", Map.of()).get("reports")).hasSize(1);

    provider.forget(ALICE);

    assertThat(tool(ALICE, "dream_reports", Map.of()).get("reports")).isEmpty();
    assertThat(filesHolding("7741")).isEmpty();
    assertThat(tool(BOB, "dream_reports", Map.of()).get("reports")).hasSize(1);
  }

  @Test
  void reportsAreKeptOutOfSearch() {
    open(model);
    night(ALICE, "Kickoff", "## Plans\n- Quokka migration first");
    night(ALICE, "Change", "## Plans\n- Something else entirely");
    // the removed line lives on only in the report, which search does not see
    JsonNode hits =
        tool(ALICE, "search_workspace_memory", Map.of("query", "quokka", "scope", "personal"));
    assertThat(hits.toString()).doesNotContain("dreams/");
  }

  @Test
  void aFocusedDreamTellsTheModelItsTopicAndNeedsAChatModel() {
    open(model);
    night(ALICE, "Kickoff", "## Plans\n- Billing ships Friday");
    model.answer(
        JSON.writeValueAsString(
            Map.of(
                "should_update",
                true,
                "reason",
                "billing",
                "memory_content",
                "## Plans\n- Billing ships Monday")));
    JsonNode run = tool(ALICE, "run_focused_dream", Map.of("topic", "billing"));
    assertThat(run.get("status").asString()).isEqualTo("completed");
    List<ScriptedLanguageModel.Call> calls = model.calls();
    assertThat(calls.get(calls.size() - 1).user()).contains("Focus").contains("\"billing\"");
    assertThat(tool(ALICE, "dream_reports", Map.of()).get("reports").get(0).get("topic").asString())
        .isEqualTo("billing");
    provider.close();
    provider = null;

    open(LanguageModel.none());
    ToolException failure =
        catchThrowableOfType(
            ToolException.class,
            () -> tool(ALICE, "run_focused_dream", Map.of("topic", "billing")));
    assertThat(failure.kind()).isEqualTo(ToolException.Kind.CONFLICT);
    assertThat(failure.getMessage()).contains("memstack.models.chat");
    // the reads need no model
    assertThat(tool(ALICE, "dream_reports", Map.of()).get("reports")).hasSize(2);
  }

  private List<Path> filesHolding(String secret) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(Files::isRegularFile)
          .filter(
              f -> {
                try {
                  return new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1)
                      .contains(secret);
                } catch (IOException e) {
                  return false;
                }
              })
          .toList();
    }
  }
}
