package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Scope;
import dev.memstack.spi.Turn;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/**
 * The tests every {@link MemoryProvider} passes.
 *
 * <p>A provider's test extends this one kit and runs every nested check group, as Micrometer's
 * {@code MeterRegistryCompatibilityKit} does. Each group lives in a file of its own ({@code
 * BasicsChecks}, {@code OwnerIsolationChecks}, {@code AgentIsolationChecks}, {@code
 * SharedMemoryChecks}, {@code RecallContractChecks}, {@code TurnRecallChecks}, {@code
 * WriteGuardChecks}, {@code ForgetChecks}, {@code StandardToolContractChecks}, {@code
 * FeedbackChecks}, {@code OwnerPromptChecks}, {@code CoordinationPortChecks}, {@code
 * AfterCloseChecks}); the kit only names them, below.
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

  /**
   * A turn of {@code owner} in {@code agent} that the provider refuses for good ({@link
   * dev.memstack.spi.TurnRejectedException}); a provider that claims {@link
   * dev.memstack.spi.Capability#REJECTS_TURNS} must override it. The default is {@code null}.
   *
   * @since 0.5.0
   */
  protected Turn turnTheProviderRejects(AgentId agent, OwnerKey owner) {
    return null;
  }

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

  RecallRequest request(AgentId agent, OwnerKey owner, String query, int limit) {
    Instant clockNow = context.clock().instant();
    Instant systemNow = Instant.now();
    Instant base = clockNow.isAfter(systemNow) ? clockNow : systemNow;
    return new RecallRequest(
        agent, owner, Turns.CONVERSATION, query, limit, base.plus(recallTimeout()));
  }

  /**
   * Closes the provider under test and creates it again on the same data directory, with {@code
   * coordination} in its context (everything else as {@link #context} builds it).
   */
  void recreateWith(Coordination coordination) {
    closeProvider();
    context = context(template.copy().coordination(coordination));
    provider = createProvider(context);
    assertThat(provider).as("createProvider(...) must return a provider").isNotNull();
    closed = false;
  }

  // The check groups, each in a file of its own; one @Nested class each so that every test
  // extending the kit runs them all.

  @Nested
  @DisplayName("Trust both ways")
  class Trust extends TrustChecks {
    Trust() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Memories one by one")
  class MemoryAdmin extends MemoryAdminChecks {
    MemoryAdmin() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Turns the provider rejects")
  class TurnRejection extends TurnRejectionChecks {
    TurnRejection() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("The provider itself")
  class Basics extends BasicsChecks {
    Basics() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Owner isolation")
  class OwnerIsolation extends OwnerIsolationChecks {
    OwnerIsolation() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Agent isolation")
  class AgentIsolation extends AgentIsolationChecks {
    AgentIsolation() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Shared memory")
  class SharedMemory extends SharedMemoryChecks {
    SharedMemory() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Recall contract")
  class RecallContract extends RecallContractChecks {
    RecallContract() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Turn recall")
  class TurnRecall extends TurnRecallChecks {
    TurnRecall() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Write tools on shared memory")
  class WriteGuard extends WriteGuardChecks {
    WriteGuard() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Forgetting an owner")
  class Forget extends ForgetChecks {
    Forget() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Standard tools of a claimed capability")
  class StandardToolContract extends StandardToolContractChecks {
    StandardToolContract() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Feedback")
  class Feedback extends FeedbackChecks {
    Feedback() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Owner prompt")
  class OwnerPrompt extends OwnerPromptChecks {
    OwnerPrompt() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("Coordination (SPI 0.3.0)")
  class CoordinationPort extends CoordinationPortChecks {
    CoordinationPort() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }

  @Nested
  @DisplayName("After close")
  class AfterClose extends AfterCloseChecks {
    AfterClose() {
      super(MemoryProviderCompatibilityKit.this);
    }
  }
}
