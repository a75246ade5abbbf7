package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.spi.Turn;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/**
 * The tests every {@link MemoryProvider} passes.
 *
 * <p>One class on purpose (~1,050 lines): a provider's test extends one kit and runs every nested
 * test group, as Micrometer's {@code MeterRegistryCompatibilityKit} does.
 *
 * <p>A provider's test class extends this kit and implements one hook, {@link
 * #createProvider(ProviderContext)}; the kit builds the context itself (a fresh temporary data
 * directory per test, a {@link HashingEmbedder}, {@link dev.memstack.spi.LanguageModel#none()} and
 * a {@link MutableClock}) and closes the provider after each test. Tests that need an optional
 * {@link Capability} are skipped by assumption, so a report shows what a provider does not claim.
 *
 * <pre>{@code
 * class VectorMemoryProviderCompatibilityTest extends MemoryProviderCompatibilityKit {
 *
 *   @Override
 *   protected MemoryProvider createProvider(ProviderContext context) {
 *     return new VectorMemoryProviderFactory().create(context);
 *   }
 *
 *   @Override
 *   protected ProviderConfig config() { // optional: settings under config.*
 *     return ProviderConfig.of("memstack.providers.tck.config", Map.of("store", "embedded"));
 *   }
 *
 *   @Override
 *   protected void writeShared(MemoryProvider p, AgentId agent, Scope scope, String text) {
 *     p.callTool(new ToolCall(agent, null, "memory_add", "{\"scope\":\"team\",\"text\":\"...\"}"));
 *   }
 * }
 * }</pre>
 *
 * <p>A provider with write tools implements {@link #sharedRecords()}: the kit then checks that a
 * caller limited to personal memory (the host's token bound to an owner) or a read-only caller
 * cannot change a TEAM or GLOBAL record with them.
 *
 * <p>Other hooks: {@link #context(TestProviderContext.Builder)} to change the context, {@link
 * #awaitIndexed(MemoryProvider)} for providers that make writes searchable asynchronously, {@link
 * #recallTimeout()} for slow backends. A synced turn is expected to be findable by its exact words
 * (capability {@link Capability#RECALLS_TURNS}); texts in the kit use rare words such as "marmalade
 * zeppelin quartet" so that a keyword or a vector search finds them.
 */
public abstract class MemoryProviderCompatibilityKit {

  /** The agent most tests use. */
  protected static final AgentId AGENT = AgentId.of("tck-agent");

  /** A second agent, for tests that check nothing crosses agents. */
  protected static final AgentId OTHER_AGENT = AgentId.of("tck-other-agent");

  /** The owner most tests use. */
  protected static final OwnerKey ALICE = OwnerKey.of("user:alice");

  /** A second owner, for isolation tests. */
  protected static final OwnerKey BOB = OwnerKey.of("api:bob");

  private static final String ALICE_PHRASE = "marmalade zeppelin quartet";
  private static final String BOB_PHRASE = "tangerine submarine orchestra";
  private static final String SHARED_WORD = "saffron";

  private TestProviderContext context;
  private TestProviderContext.Builder template;
  private MemoryProvider provider;
  private boolean closed;

  /**
   * Builds the provider under test from {@code context}, as the provider's factory would. Called
   * once per test.
   */
  protected abstract MemoryProvider createProvider(ProviderContext context);

  /**
   * The provider's {@code config.*} settings. The default is empty, under the prefix {@code
   * memstack.providers.<instanceId()>.config}.
   */
  protected ProviderConfig config() {
    return ProviderConfig.empty("memstack.providers." + instanceId() + ".config");
  }

  /** The instance id of the provider under test; {@code tck} by default. */
  protected String instanceId() {
    return "tck";
  }

  /**
   * Builds the context the provider is created with. {@code defaults} already holds the instance
   * id, {@link #config()}, a fresh data directory, a {@link MutableClock} at the current time, a
   * {@link HashingEmbedder} and no language model; override to change any of them, e.g. {@code
   * return defaults.languageModel(fakeModel).build();}.
   */
  protected TestProviderContext context(TestProviderContext.Builder defaults) {
    return defaults.build();
  }

  /**
   * Writes a TEAM or GLOBAL memory for {@code agent}, e.g. through one of the provider's tools.
   * Providers with {@link Capability#SHARED_MEMORY} implement this; the default aborts the test
   * (shown as skipped).
   *
   * @param scope {@link Scope#TEAM} or {@link Scope#GLOBAL}
   */
  protected void writeShared(MemoryProvider provider, AgentId agent, Scope scope, String text) {
    throw new TestAbortedException(
        getClass().getSimpleName()
            + " does not implement writeShared(...), so shared memory"
            + " is not tested");
  }

  /**
   * How to make a shared record and which write tools to try on it, for the write-guard tests
   * ({@link SharedRecords}). The default is {@code null}: a provider without write tools, whose
   * write-guard tests are skipped.
   */
  protected SharedRecords sharedRecords() {
    return null;
  }

  /**
   * Waits until writes so far are searchable. Called after every sync, shared write and forget; the
   * default does nothing (writes are searchable at once).
   */
  protected void awaitIndexed(MemoryProvider provider) {}

  /** How long a recall may take; {@link RecallRequest#deadline()} is set this far ahead. */
  protected Duration recallTimeout() {
    return Duration.ofSeconds(10);
  }

  /** The provider under the current test. */
  protected final MemoryProvider provider() {
    return provider;
  }

  /** The context the provider under the current test was built with. */
  protected final TestProviderContext providerContext() {
    return context;
  }

  @BeforeEach
  void createProviderUnderTest(@TempDir Path dataRoot) {
    TestProviderContext.Builder defaults =
        TestProviderContext.builder()
            .instanceId(instanceId())
            .config(config())
            .dataDir(dataRoot.resolve(instanceId()))
            .clock(MutableClock.atSystemTime());
    template = defaults.copy();
    context = context(defaults);
    assertThat(context).as("context(...) must return a context").isNotNull();
    provider = createProvider(context);
    assertThat(provider).as("createProvider(...) must return a provider").isNotNull();
    closed = false;
  }

  @AfterEach
  void closeProviderUnderTest() {
    closeProvider();
  }

  /** Closes the provider under test once; later calls do nothing. */
  protected final void closeProvider() {
    if (provider != null && !closed) {
      closed = true;
      provider.close();
    }
  }

  /** A turn timed by the context clock; a {@link MutableClock} moves one minute per turn. */
  protected final Turn turn(AgentId agent, OwnerKey owner, String userMessage, String reply) {
    Clock clock = context.clock();
    if (clock instanceof MutableClock mutable) {
      mutable.advance(Duration.ofMinutes(1));
    }
    return Turns.turn(clock, agent, owner, userMessage, reply);
  }

  /** Syncs the turns in order, then {@link #awaitIndexed(MemoryProvider) waits} for the index. */
  protected final void sync(Turn... turns) {
    for (Turn turn : turns) {
      provider.syncTurn(turn);
    }
    awaitIndexed(provider);
  }

  /** Syncs the turns in one {@code syncTurns} call, then waits for the index. */
  protected final void syncBatch(Turn... turns) {
    provider.syncTurns(List.of(turns));
    awaitIndexed(provider);
  }

  /** Recalls for {@code owner} (may be {@code null}) from {@code agent}'s memory. */
  protected final List<RecallItem> recall(AgentId agent, OwnerKey owner, String query, int limit) {
    Recall recall = provider.prefetch(request(agent, owner, query, limit));
    assertThat(recall).as("prefetch must not return null").isNotNull();
    return recall.items();
  }

  private RecallRequest request(AgentId agent, OwnerKey owner, String query, int limit) {
    Instant clockNow = context.clock().instant();
    Instant systemNow = Instant.now();
    Instant base = clockNow.isAfter(systemNow) ? clockNow : systemNow;
    return new RecallRequest(
        agent, owner, Turns.CONVERSATION, query, limit, base.plus(recallTimeout()));
  }

  private boolean has(Capability capability) {
    return provider.capabilities().contains(capability);
  }

  private void assumeCapability(Capability capability) {
    assumeTrue(
        has(capability),
        () -> provider.id() + " does not declare " + capability + "; test skipped");
  }

  private static boolean mentions(RecallItem item, String phrase) {
    return mentions(item.text(), phrase);
  }

  private static boolean mentions(String text, String phrase) {
    return text.toLowerCase(Locale.ROOT).contains(phrase.toLowerCase(Locale.ROOT));
  }

  private static long countMentions(List<RecallItem> items, String phrase) {
    return items.stream().filter(item -> mentions(item, phrase)).count();
  }

  private Turn aliceTurn(AgentId agent) {
    return turn(
        agent,
        ALICE,
        "Remember that my band is called the " + ALICE_PHRASE + ".",
        "Noted: your band is the " + ALICE_PHRASE + ".");
  }

  private Turn bobTurn(AgentId agent) {
    return turn(
        agent,
        BOB,
        "My favourite ensemble is the " + BOB_PHRASE + ".",
        "I will remember the " + BOB_PHRASE + ".");
  }

  private List<Turn> sharedWordTurns(OwnerKey owner, int count) {
    List<Turn> turns = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      turns.add(
          turn(
              AGENT,
              owner,
              "Recipe note " + i + ": dish " + i + " uses " + SHARED_WORD + " and rice.",
              "Saved recipe note " + i + " with " + SHARED_WORD + "."));
    }
    return turns;
  }

  /** Checks the basic contract every answer keeps, whatever the query. */
  private void assertWellFormed(List<RecallItem> items, OwnerKey requester, int limit) {
    assertThat(items).as("items of a recall limited to %d", limit).hasSizeLessThanOrEqualTo(limit);
    for (RecallItem item : items) {
      assertThat(item.source()).as("source of %s", item).isEqualTo(provider.id());
      if (item.scope() == Scope.PERSONAL) {
        assertThat(requester)
            .as("a PERSONAL item was returned to a request without owner: %s", item)
            .isNotNull();
        assertThat(item.owner()).as("owner of PERSONAL item %s", item).isEqualTo(requester);
      }
    }
  }

  @Nested
  @DisplayName("The provider itself")
  class Basics {

    @Test
    @DisplayName("reports the instance id it was configured with")
    void reportsTheInstanceIdItWasConfiguredWith() {
      assertThat(provider.id()).isEqualTo(context.instanceId());
    }

    @Test
    @DisplayName("answers health and capabilities without throwing")
    void answersHealthAndCapabilitiesWithoutThrowing() {
      assertThat(provider.health()).isNotNull();
      assertThat(provider.capabilities()).isNotNull();
    }

    @Test
    @DisplayName("offers tools with unique names")
    void offersToolsWithUniqueNames() {
      List<ToolSpec> tools = provider.tools();
      assertThat(tools).isNotNull();
      assertThat(tools.stream().map(ToolSpec::name)).doesNotHaveDuplicates();
    }

    @Test
    @DisplayName("declares the effect of every tool")
    void declaresTheEffectOfEveryTool() {
      assertThat(provider.tools())
          .as("tools whose effect is UNDECLARED (the host treats them as destructive)")
          .noneMatch(spec -> spec.effect() == ToolSpec.Effect.UNDECLARED);
    }

    @Test
    @DisplayName("recalls nothing, and does not throw, before anything was synced")
    void recallsNothingBeforeAnythingWasSynced() {
      List<RecallItem> items = recall(AGENT, ALICE, ALICE_PHRASE, 5);
      assertThat(items).noneMatch(item -> mentions(item, ALICE_PHRASE));
      assertWellFormed(items, ALICE, 5);
    }
  }

  @Nested
  @DisplayName("Owner isolation")
  class OwnerIsolation {

    @Test
    @DisplayName("owner A's personal memory never appears in owner B's recall")
    void ownerAsPersonalMemoryNeverAppearsInOwnerBsRecall() {
      sync(aliceTurn(AGENT), bobTurn(AGENT));

      if (has(Capability.RECALLS_TURNS)) {
        assertThat(recall(AGENT, ALICE, ALICE_PHRASE, 10))
            .as("alice recalls her own turn (control)")
            .anyMatch(item -> mentions(item, ALICE_PHRASE));
      }
      List<RecallItem> bobs = recall(AGENT, BOB, ALICE_PHRASE, 10);
      assertThat(bobs)
          .as("bob's recall for alice's words")
          .noneMatch(item -> item.scope() == Scope.PERSONAL && !BOB.equals(item.owner()))
          .noneMatch(item -> mentions(item, ALICE_PHRASE));
      assertWellFormed(bobs, BOB, 10);
    }

    @Test
    @DisplayName("an owner-less request never returns personal items")
    void anOwnerlessRequestNeverReturnsPersonalItems() {
      sync(aliceTurn(AGENT), bobTurn(AGENT));

      for (String query : List.of(ALICE_PHRASE, BOB_PHRASE, "")) {
        List<RecallItem> items = recall(AGENT, null, query, 10);
        assertThat(items)
            .as("owner-less recall for '%s'", query)
            .noneMatch(item -> item.scope() == Scope.PERSONAL)
            .noneMatch(item -> mentions(item, ALICE_PHRASE) || mentions(item, BOB_PHRASE));
      }
    }

    @Test
    @DisplayName("the system prompt block never carries personal memory")
    void theSystemPromptBlockNeverCarriesPersonalMemory() {
      sync(aliceTurn(AGENT), bobTurn(AGENT));

      String block = provider.systemPromptBlock(AGENT);
      assertThat(block).isNotNull();
      assertThat(mentions(block, ALICE_PHRASE) || mentions(block, BOB_PHRASE))
          .as("system prompt block mentions a personal turn:%n%s", block)
          .isFalse();
    }
  }

  @Nested
  @DisplayName("Agent isolation")
  class AgentIsolation {

    @Test
    @DisplayName("a turn synced for one agent is never recalled for another, same owner")
    void aTurnSyncedForOneAgentIsNeverRecalledForAnother() {
      sync(aliceTurn(AGENT));

      if (has(Capability.RECALLS_TURNS)) {
        assertThat(recall(AGENT, ALICE, ALICE_PHRASE, 10))
            .as("the agent the turn belongs to recalls it (control)")
            .anyMatch(item -> mentions(item, ALICE_PHRASE));
      }
      List<RecallItem> other = recall(OTHER_AGENT, ALICE, ALICE_PHRASE, 10);
      assertThat(other)
          .as("recall of another agent for the same owner")
          .noneMatch(item -> mentions(item, ALICE_PHRASE));
      assertThat(provider.systemPromptBlock(OTHER_AGENT)).doesNotContainIgnoringCase(ALICE_PHRASE);
    }
  }

  @Nested
  @DisplayName("Shared memory")
  class SharedMemory {

    private static final String TEAM_FACT = "The team mascot is a cobalt walrus named Pemberton.";
    private static final String GLOBAL_FACT =
        "Headquarters moved to the violet lighthouse in 2026.";

    private void writeSharedAndWait(AgentId agent, Scope scope, String text) {
      assumeCapability(Capability.SHARED_MEMORY);
      writeShared(provider, agent, scope, text);
      awaitIndexed(provider);
    }

    /** Whether {@code owner} of {@code agent} sees {@code phrase} in recall or the prompt block. */
    private boolean visible(AgentId agent, OwnerKey owner, String phrase) {
      List<RecallItem> items = recall(agent, owner, phrase, 10);
      assertWellFormed(items, owner, 10);
      boolean recalled =
          items.stream().anyMatch(item -> item.scope() != Scope.PERSONAL && mentions(item, phrase));
      return recalled || mentions(provider.systemPromptBlock(agent), phrase);
    }

    @Test
    @DisplayName("team memory is visible to every owner of the agent")
    void teamMemoryIsVisibleToEveryOwnerOfTheAgent() {
      writeSharedAndWait(AGENT, Scope.TEAM, TEAM_FACT);

      for (OwnerKey owner : new OwnerKey[] {ALICE, BOB, null}) {
        assertThat(visible(AGENT, owner, "cobalt walrus"))
            .as("team memory visible to %s in recall or system prompt block", owner)
            .isTrue();
      }
    }

    @Test
    @DisplayName("global memory is visible to every owner of the agent")
    void globalMemoryIsVisibleToEveryOwnerOfTheAgent() {
      writeSharedAndWait(AGENT, Scope.GLOBAL, GLOBAL_FACT);

      for (OwnerKey owner : new OwnerKey[] {ALICE, BOB, null}) {
        assertThat(visible(AGENT, owner, "violet lighthouse"))
            .as("global memory visible to %s in recall or system prompt block", owner)
            .isTrue();
      }
    }

    @Test
    @DisplayName("team memory of one agent stays out of another agent's memory")
    void teamMemoryOfOneAgentStaysOutOfAnotherAgentsMemory() {
      writeSharedAndWait(AGENT, Scope.TEAM, TEAM_FACT);

      assertThat(recall(OTHER_AGENT, ALICE, "cobalt walrus", 10))
          .noneMatch(item -> mentions(item, "cobalt walrus"));
      assertThat(provider.systemPromptBlock(OTHER_AGENT))
          .doesNotContainIgnoringCase("cobalt walrus");
    }

    @Test
    @DisplayName("a shared write that changes the system prompt block tells the host")
    void aSharedWriteThatChangesTheSystemPromptBlockTellsTheHost() {
      String before = provider.systemPromptBlock(AGENT);
      context.clearSystemPromptChanges();
      writeSharedAndWait(AGENT, Scope.TEAM, TEAM_FACT);

      String after = provider.systemPromptBlock(AGENT);
      assumeTrue(
          !after.equals(before),
          provider.id() + " keeps shared memory out of the system prompt block; nothing to tell");
      assertThat(context.systemPromptChangedFor(AGENT))
          .as("systemPromptChanged(%s or null) called after the block changed", AGENT)
          .isTrue();
    }
  }

  @Nested
  @DisplayName("Recall contract")
  class RecallContract {

    @Test
    @DisplayName("returns no more items than the request's limit")
    void returnsNoMoreItemsThanTheLimit() {
      sync(sharedWordTurns(ALICE, 12).toArray(Turn[]::new));

      List<RecallItem> items = recall(AGENT, ALICE, SHARED_WORD, 3);
      assertThat(items).hasSizeLessThanOrEqualTo(3);
      if (has(Capability.RECALLS_TURNS)) {
        assertThat(items).as("twelve turns share the word '%s'", SHARED_WORD).isNotEmpty();
      }
      assertThat(recall(AGENT, ALICE, SHARED_WORD, 1)).hasSizeLessThanOrEqualTo(1);
    }

    @Test
    @DisplayName("orders items by non-increasing score")
    void ordersItemsByNonIncreasingScore() {
      sync(sharedWordTurns(ALICE, 12).toArray(Turn[]::new));
      sync(aliceTurn(AGENT));

      for (String query : List.of(SHARED_WORD, SHARED_WORD + " " + ALICE_PHRASE, "dish 7 rice")) {
        List<RecallItem> items = recall(AGENT, ALICE, query, 20);
        for (int i = 1; i < items.size(); i++) {
          assertThat(items.get(i).score())
              .as("score of item %d for '%s' in %s", i, query, items)
              .isLessThanOrEqualTo(items.get(i - 1).score());
        }
      }
    }

    @Test
    @DisplayName("marks every item with its own id and the requesting owner")
    void marksEveryItemWithItsOwnIdAndTheRequestingOwner() {
      sync(sharedWordTurns(ALICE, 4).toArray(Turn[]::new));
      sync(sharedWordTurns(BOB, 4).toArray(Turn[]::new));

      assertWellFormed(recall(AGENT, ALICE, SHARED_WORD, 20), ALICE, 20);
      assertWellFormed(recall(AGENT, BOB, SHARED_WORD, 20), BOB, 20);
    }

    @Test
    @DisplayName("asked for vectors, attaches only vectors of the host's model and dimension")
    void attachesOnlyTheHostsVectors() {
      sync(sharedWordTurns(ALICE, 6).toArray(Turn[]::new));
      String model = context.embedder().modelId();
      int dimension = context.embedder().dimension();

      List<RecallItem> items =
          provider.prefetch(request(AGENT, ALICE, SHARED_WORD, 10).withVectors(true)).items();

      assertWellFormed(items, ALICE, 10);
      for (RecallItem item : items) {
        if (item.vector() != null) {
          assertThat(item.vector().model())
              .as("model of the vector attached to '%s'", item.text())
              .isEqualTo(model);
          assertThat(item.vector().dimension())
              .as("dimension of the vector attached to '%s'", item.text())
              .isEqualTo(dimension);
        }
      }
    }

    @Test
    @DisplayName("accepts a blank query without throwing")
    void acceptsABlankQueryWithoutThrowing() {
      sync(aliceTurn(AGENT), bobTurn(AGENT));

      for (String query : List.of("", "   ", "\n\t")) {
        assertThatCode(() -> assertWellFormed(recall(AGENT, ALICE, query, 5), ALICE, 5))
            .as("recall for blank query '%s'", query)
            .doesNotThrowAnyException();
        assertThatCode(() -> assertWellFormed(recall(AGENT, null, query, 5), null, 5))
            .as("owner-less recall for blank query '%s'", query)
            .doesNotThrowAnyException();
      }
    }
  }

  @Nested
  @DisplayName("Turn recall")
  class TurnRecall {

    @BeforeEach
    void requireTurnRecall() {
      assumeCapability(Capability.RECALLS_TURNS);
    }

    @Test
    @DisplayName("finds a synced turn again by an exact phrase from it")
    void findsASyncedTurnAgainByAnExactPhrase() {
      sync(sharedWordTurns(ALICE, 3).toArray(Turn[]::new));
      sync(aliceTurn(AGENT));
      sync(turn(AGENT, ALICE, "The weather was grey and windy today.", "Stay warm."));

      List<RecallItem> items = recall(AGENT, ALICE, ALICE_PHRASE, 5);
      assertThat(items)
          .as("recall for '%s'", ALICE_PHRASE)
          .anySatisfy(
              item -> {
                assertThat(item.text()).containsIgnoringCase(ALICE_PHRASE);
                assertThat(item.scope()).isEqualTo(Scope.PERSONAL);
                assertThat(item.owner()).isEqualTo(ALICE);
              });
    }

    @Test
    @DisplayName("stores a turn delivered twice only once")
    void storesATurnDeliveredTwiceOnlyOnce() {
      Turn turn = aliceTurn(AGENT);
      sync(turn);
      long once = countMentions(recall(AGENT, ALICE, ALICE_PHRASE, 50), ALICE_PHRASE);
      assertThat(once).as("items for one delivery").isPositive();

      sync(turn);
      sync(turn);
      long thrice = countMentions(recall(AGENT, ALICE, ALICE_PHRASE, 50), ALICE_PHRASE);
      assertThat(thrice)
          .as("items after the same turn id was delivered three times")
          .isEqualTo(once);
    }

    @Test
    @DisplayName("keeps every turn of a batch for its own owner")
    void keepsEveryTurnOfABatchForItsOwnOwner() {
      syncBatch(
          bobTurn(AGENT),
          aliceTurn(AGENT),
          turn(AGENT, ALICE, "The weather was grey and windy today.", "Stay warm."));

      assertThat(recall(AGENT, ALICE, ALICE_PHRASE, 10))
          .as("alice recalls her turn from the batch")
          .anyMatch(item -> mentions(item, ALICE_PHRASE));
      assertThat(recall(AGENT, BOB, BOB_PHRASE, 10))
          .as("bob recalls his turn from the batch")
          .anyMatch(item -> mentions(item, BOB_PHRASE));
      List<RecallItem> bobs = recall(AGENT, BOB, ALICE_PHRASE, 10);
      assertThat(bobs)
          .as("bob's recall for alice's words after a batch holding both")
          .noneMatch(item -> mentions(item, ALICE_PHRASE));
      assertWellFormed(bobs, BOB, 10);
    }

    @Test
    @DisplayName(
        "keeps the same turn id of two owners as two turns, each recalled by its own owner")
    void keepsTheSameTurnIdOfTwoOwnersAsTwoTurns() {
      Turn alices = aliceTurn(AGENT);
      Turn bobs = bobTurn(AGENT);
      sync(alices);
      sync(
          Turns.turn(
              alices.turnId(), bobs.time(), AGENT, BOB, bobs.userMessage(), bobs.assistantReply()));
      Turn alicesAgain = aliceTurn(OTHER_AGENT);
      syncBatch(
          Turns.turn(
              alices.turnId(),
              alicesAgain.time(),
              OTHER_AGENT,
              ALICE,
              alicesAgain.userMessage(),
              alicesAgain.assistantReply()));

      List<RecallItem> alicesItems = recall(AGENT, ALICE, ALICE_PHRASE, 10);
      assertThat(alicesItems)
          .as("alice recalls her turn, whose id bob used too")
          .anyMatch(item -> mentions(item, ALICE_PHRASE));
      assertThat(recall(AGENT, BOB, BOB_PHRASE, 10))
          .as("bob recalls his turn of the id alice used first")
          .anyMatch(item -> mentions(item, BOB_PHRASE));
      assertThat(recall(OTHER_AGENT, ALICE, ALICE_PHRASE, 10))
          .as("alice recalls the turn of the same id in another agent")
          .anyMatch(item -> mentions(item, ALICE_PHRASE));
      List<RecallItem> bobsItems = recall(AGENT, BOB, ALICE_PHRASE, 10);
      assertThat(bobsItems)
          .as("bob's recall for alice's words")
          .noneMatch(item -> mentions(item, ALICE_PHRASE));
      assertThat(recall(AGENT, ALICE, BOB_PHRASE, 10))
          .as("alice's recall for bob's words")
          .noneMatch(item -> mentions(item, BOB_PHRASE));
      assertWellFormed(alicesItems, ALICE, 10);
      assertWellFormed(bobsItems, BOB, 10);
    }

    @Test
    @DisplayName("stores a turn once when batches repeat it or overlap a single delivery")
    void storesATurnOnceWhenBatchesRepeatIt() {
      Turn turn = aliceTurn(AGENT);
      sync(turn);
      long once = countMentions(recall(AGENT, ALICE, ALICE_PHRASE, 50), ALICE_PHRASE);
      assertThat(once).as("items for one delivery").isPositive();

      Turn other = turn(AGENT, ALICE, "The weather was grey and windy today.", "Stay warm.");
      syncBatch(other, turn, turn);
      syncBatch(turn, other);
      assertThat(countMentions(recall(AGENT, ALICE, ALICE_PHRASE, 50), ALICE_PHRASE))
          .as("items after the same turn id came again in batches")
          .isEqualTo(once);
    }
  }

  @Nested
  @DisplayName("Write tools on shared memory")
  class WriteGuard {

    private SharedRecords records;

    @BeforeEach
    void requireSharedRecords() {
      records = sharedRecords();
      assumeTrue(
          records != null,
          () -> getClass().getEnclosingClass().getSimpleName() + " supplies no sharedRecords()");
    }

    @Test
    @DisplayName("refuse a caller limited to personal memory on a team record, changing nothing")
    void refuseAPersonalOnlyCallerOnATeamRecord() {
      assertEveryAttemptRefused(Scope.TEAM, ALICE, EnumSet.of(Scope.PERSONAL));
    }

    @Test
    @DisplayName("refuse a caller limited to personal memory on a global record, changing nothing")
    void refuseAPersonalOnlyCallerOnAGlobalRecord() {
      assertEveryAttemptRefused(Scope.GLOBAL, ALICE, EnumSet.of(Scope.PERSONAL));
    }

    @Test
    @DisplayName("refuse a read-only caller on a team record, changing nothing")
    void refuseAReadOnlyCallerOnATeamRecord() {
      assertEveryAttemptRefused(Scope.TEAM, ALICE, EnumSet.noneOf(Scope.class));
    }

    @Test
    @DisplayName("are declared as tools that change memory, and do change it for a caller who may")
    void changeTheRecordForACallerWhoMay() {
      int count = attempts(Scope.TEAM).size();
      for (int i = 0; i < count; i++) {
        String id = records.create(provider, AGENT, Scope.TEAM);
        awaitIndexed(provider);
        SharedRecords.Attempt attempt = records.attempts(Scope.TEAM, id).get(i);
        ToolSpec spec =
            provider.tools().stream()
                .filter(t -> t.name().equals(attempt.tool()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no tool " + attempt.tool()));
        assertThat(spec.effect().changesMemory())
            .as("effect of %s (%s)", spec.name(), spec.effect())
            .isTrue();
        String before = records.state(provider, AGENT, Scope.TEAM, id);
        provider.callTool(
            new ToolCall(
                AGENT, ALICE, attempt.tool(), attempt.arguments(), EnumSet.allOf(Scope.class)));
        awaitIndexed(provider);
        assertThat(records.state(provider, AGENT, Scope.TEAM, id))
            .as("the team record after %s by a caller who may write every scope", attempt)
            .isNotEqualTo(before);
      }
    }

    private List<SharedRecords.Attempt> attempts(Scope scope) {
      return attempts(scope, records.create(provider, AGENT, scope));
    }

    /** The attempts on record {@code id}, once it is searchable; skips the test without any. */
    private List<SharedRecords.Attempt> attempts(Scope scope, String id) {
      awaitIndexed(provider);
      List<SharedRecords.Attempt> attempts = records.attempts(scope, id);
      assumeTrue(
          attempts != null && !attempts.isEmpty(),
          () -> "sharedRecords() gives no write tool calls for a " + scope + " record");
      return attempts;
    }

    private void assertEveryAttemptRefused(Scope scope, OwnerKey owner, Set<Scope> writable) {
      String id = records.create(provider, AGENT, scope);
      List<SharedRecords.Attempt> attempts = attempts(scope, id);
      String before = records.state(provider, AGENT, scope, id);
      for (SharedRecords.Attempt attempt : attempts) {
        ToolCall call = new ToolCall(AGENT, owner, attempt.tool(), attempt.arguments(), writable);
        assertThatThrownBy(() -> provider.callTool(call))
            .as("%s on a %s record by a caller who may write %s", attempt, scope, writable)
            .isInstanceOfSatisfying(
                ToolException.class,
                e -> assertThat(e.kind()).as("kind").isEqualTo(ToolException.Kind.FORBIDDEN));
        awaitIndexed(provider);
        assertThat(records.state(provider, AGENT, scope, id))
            .as("the %s record after the refused %s", scope, attempt)
            .isEqualTo(before);
      }
    }
  }

  @Nested
  @DisplayName("Forgetting an owner")
  class Forget {

    @BeforeEach
    void requireForget() {
      assumeCapability(Capability.FORGET);
    }

    @Test
    @DisplayName("erases that owner in every agent and nobody else")
    void erasesThatOwnerInEveryAgentAndNobodyElse() {
      sync(aliceTurn(AGENT), aliceTurn(OTHER_AGENT), bobTurn(AGENT));
      boolean recallsTurns = has(Capability.RECALLS_TURNS);
      if (recallsTurns) {
        assertThat(recall(AGENT, ALICE, ALICE_PHRASE, 10))
            .as("alice's turn before forget (control)")
            .anyMatch(item -> mentions(item, ALICE_PHRASE));
      }

      long removed = provider.forget(ALICE);
      awaitIndexed(provider);

      assertThat(removed).as("count of removed entries").isNotNegative();
      for (AgentId agent : List.of(AGENT, OTHER_AGENT)) {
        assertThat(recall(agent, ALICE, ALICE_PHRASE, 10))
            .as("alice's recall in %s after forget", agent)
            .noneMatch(item -> mentions(item, ALICE_PHRASE))
            .noneMatch(item -> item.scope() == Scope.PERSONAL && ALICE.equals(item.owner()));
      }
      if (recallsTurns) {
        assertThat(recall(AGENT, BOB, BOB_PHRASE, 10))
            .as("bob's recall after alice was forgotten")
            .anyMatch(item -> mentions(item, BOB_PHRASE));
      }
    }

    @Test
    @DisplayName("accepts an owner it has never seen")
    void acceptsAnOwnerItHasNeverSeen() {
      sync(bobTurn(AGENT));

      assertThat(provider.forget(OwnerKey.of("user:nobody-" + System.nanoTime()))).isNotNegative();
      if (has(Capability.RECALLS_TURNS)) {
        awaitIndexed(provider);
        assertThat(recall(AGENT, BOB, BOB_PHRASE, 10)).anyMatch(item -> mentions(item, BOB_PHRASE));
      }
    }
  }

  @Nested
  @DisplayName("Standard tools of a claimed capability")
  class StandardToolContract {

    @Test
    @DisplayName("a WORKSPACE_FILES provider offers every workspace tool with its effect")
    void offersTheWorkspaceTools() {
      assumeCapability(Capability.WORKSPACE_FILES);
      assertOffersStandardTools(Capability.WORKSPACE_FILES);
    }

    @Test
    @DisplayName("a MEMORY_JOBS provider offers every memory-job tool with its effect")
    void offersTheMemoryJobTools() {
      assumeCapability(Capability.MEMORY_JOBS);
      assertOffersStandardTools(Capability.MEMORY_JOBS);
    }

    private void assertOffersStandardTools(Capability capability) {
      Map<String, ToolSpec> offered = new HashMap<>();
      for (ToolSpec spec : provider.tools()) {
        offered.put(spec.name(), spec);
      }
      assertThat(offered.keySet())
          .as("tools of %s, which claims %s", provider.id(), capability)
          .containsAll(StandardTools.required(capability));
      for (String name : StandardTools.required(capability)) {
        ToolSpec.Effect effect = offered.get(name).effect();
        if (StandardTools.readOnly(name)) {
          assertThat(effect).as("effect of %s", name).isEqualTo(ToolSpec.Effect.READ);
        } else {
          assertThat(effect.changesMemory()).as("%s (%s) changes memory", name, effect).isTrue();
        }
      }
    }
  }

  @Nested
  @DisplayName("Feedback")
  class Feedback {

    private static final String QUERY = "saffron lantern";

    @BeforeEach
    void requireFeedback() {
      assumeCapability(Capability.FEEDBACK);
    }

    /** The {@code id} metadata of every item; a provider that claims FEEDBACK must give it. */
    private List<String> ids(List<RecallItem> items) {
      List<String> ids = new ArrayList<>();
      for (RecallItem item : items) {
        String id = item.metadata().get("id");
        assertThat(id).as("id metadata of %s (feedback names items by it)", item).isNotBlank();
        ids.add(id);
      }
      return ids;
    }

    @Test
    @DisplayName("one owner's feedback on shared memory leaves another owner's answer unchanged")
    void oneOwnersFeedbackLeavesAnotherOwnersAnswerUnchanged() {
      assumeCapability(Capability.SHARED_MEMORY);
      writeShared(provider, AGENT, Scope.TEAM, "The saffron lantern hangs in the hall.");
      writeShared(provider, AGENT, Scope.TEAM, "A saffron scarf was left near the lantern room.");
      writeShared(provider, AGENT, Scope.GLOBAL, "Saffron is the colour of the lobby.");
      awaitIndexed(provider);
      sync(turn(AGENT, BOB, "My saffron lantern collection has nine pieces.", "Nine, noted."));
      List<RecallItem> before = recall(AGENT, BOB, QUERY, 10);
      assumeTrue(
          before.stream().filter(item -> item.scope() != Scope.PERSONAL).count() >= 2,
          () -> provider.id() + " recalls fewer than two shared items for '" + QUERY + "'");
      List<String> order = ids(before);
      // alice confirms the shared item bob sees last, again and again
      String last = null;
      for (RecallItem item : before) {
        if (item.scope() != Scope.PERSONAL) {
          last = item.metadata().get("id");
        }
      }
      assertThat(ids(recall(AGENT, ALICE, QUERY, 10))).as("alice sees it too").contains(last);
      for (int i = 0; i < 10; i++) {
        int applied = provider.feedback(AGENT, ALICE, List.of(last));
        assertThat(applied).as("feedback applied for one id").isBetween(0, 1);
      }
      awaitIndexed(provider);

      List<RecallItem> after = recall(AGENT, BOB, QUERY, 10);
      assertThat(ids(after)).as("bob's order after alice's feedback").isEqualTo(order);
      assertWellFormed(after, BOB, 10);
      List<RecallItem> alices = recall(AGENT, ALICE, QUERY, 10);
      assertWellFormed(alices, ALICE, 10);
      for (int i = 1; i < alices.size(); i++) {
        assertThat(alices.get(i).score())
            .as("alice's scores after her feedback stay in order: %s", alices)
            .isLessThanOrEqualTo(alices.get(i - 1).score());
      }
    }

    @Test
    @DisplayName("applies no id that is unknown or another owner's, and does not throw")
    void appliesNoUnknownOrForeignId() {
      sync(aliceTurn(AGENT), bobTurn(AGENT));
      List<String> bobs = ids(recall(AGENT, BOB, BOB_PHRASE, 10));

      assertThat(provider.feedback(AGENT, ALICE, List.of())).as("no ids").isZero();
      assertThat(provider.feedback(AGENT, ALICE, List.of("no-such-id-" + System.nanoTime())))
          .as("an unknown id")
          .isZero();
      if (!bobs.isEmpty()) {
        assertThat(provider.feedback(AGENT, ALICE, bobs))
            .as("ids of bob's personal memory, sent as alice")
            .isZero();
        assertThat(provider.feedback(OTHER_AGENT, BOB, bobs))
            .as("ids of bob's memory of another agent")
            .isZero();
      }
      List<String> alices = ids(recall(AGENT, ALICE, ALICE_PHRASE, 10));
      assertThat(provider.feedback(AGENT, ALICE, alices))
          .as("alice's own ids")
          .isBetween(0, alices.size());
    }
  }

  @Nested
  @DisplayName("Owner prompt")
  class OwnerPrompt {

    @BeforeEach
    void requireOwnerPrompt() {
      assumeCapability(Capability.OWNER_PROMPT);
    }

    @Test
    @DisplayName("never carries another owner's memory, nor the owner's memory of another agent")
    void neverCarriesAnotherOwnersMemory() {
      sync(aliceTurn(AGENT), bobTurn(AGENT));

      String bobs = provider.ownerPromptBlock(AGENT, BOB);
      String alicesElsewhere = provider.ownerPromptBlock(OTHER_AGENT, ALICE);

      assertThat(bobs).as("bob's owner prompt").isNotNull().doesNotContain(ALICE_PHRASE);
      assertThat(alicesElsewhere)
          .as("alice's owner prompt in another agent")
          .isNotNull()
          .doesNotContain(ALICE_PHRASE);
    }

    @Test
    @DisplayName("is stable between writes, so prompt caches hold")
    void isStableBetweenWrites() {
      sync(aliceTurn(AGENT));

      String first = provider.ownerPromptBlock(AGENT, ALICE);
      String second = provider.ownerPromptBlock(AGENT, ALICE);

      assertThat(first).isNotNull().isEqualTo(second);
    }
  }

  /**
   * Closes the provider under test and creates it again on the same data directory, with {@code
   * coordination} in its context (everything else as {@link #context} builds it).
   */
  private void recreateWith(Coordination coordination) {
    closeProvider();
    context = context(template.copy().coordination(coordination));
    provider = createProvider(context);
    assertThat(provider).as("createProvider(...) must return a provider").isNotNull();
    closed = false;
  }

  @Nested
  @DisplayName("Coordination (SPI 0.3.0)")
  class CoordinationPort {

    @Test
    @DisplayName("recall and prompts keep answering while every coordination call is refused")
    void keepsAnsweringWhileCoordinationIsRefused() {
      RecordingCoordination coordination =
          RecordingCoordination.shared(MutableClock.atSystemTime()).refuseAll(true);
      recreateWith(coordination);
      Turn turn = aliceTurn(AGENT);
      try {
        provider.syncTurn(turn);
      } catch (ProviderUnavailableException e) {
        // allowed: the host retries the turn later
      }

      assertThatCode(() -> recall(AGENT, ALICE, ALICE_PHRASE, 5))
          .as("prefetch while the coordination is unreachable")
          .doesNotThrowAnyException();
      assertThatCode(() -> provider.systemPromptBlock(AGENT))
          .as("systemPromptBlock while the coordination is unreachable")
          .doesNotThrowAnyException();

      coordination.refuseAll(false);
      provider.syncTurn(turn);
      awaitIndexed(provider);
      if (has(Capability.RECALLS_TURNS)) {
        assertThat(recall(AGENT, ALICE, ALICE_PHRASE, 5))
            .as("the turn, once the coordination answers again")
            .anyMatch(item -> mentions(item, ALICE_PHRASE));
      }
    }

    @Test
    @DisplayName("every lock a provider takes is released by the time close returns")
    void everyLockIsReleasedByClose() {
      RecordingCoordination coordination =
          RecordingCoordination.shared(MutableClock.atSystemTime());
      recreateWith(coordination);
      sync(aliceTurn(AGENT), bobTurn(AGENT));
      recall(AGENT, ALICE, ALICE_PHRASE, 5);
      provider.systemPromptBlock(AGENT);
      closeProvider();

      assertThat(coordination.held()).as("locks still held after close").isEmpty();
    }
  }

  @Nested
  @DisplayName("After close")
  class AfterClose {

    @Test
    @DisplayName("prefetch fails with IllegalStateException")
    void prefetchFailsWithIllegalStateException() {
      RecallRequest request = request(AGENT, ALICE, ALICE_PHRASE, 5);
      closeProvider();

      assertThatThrownBy(() -> provider.prefetch(request))
          .isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("syncTurn fails with IllegalStateException")
    void syncTurnFailsWithIllegalStateException() {
      Turn turn = aliceTurn(AGENT);
      closeProvider();

      assertThatThrownBy(() -> provider.syncTurn(turn)).isInstanceOf(IllegalStateException.class);
    }
  }
}
