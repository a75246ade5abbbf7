package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.Scope;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolSpec;
import dev.memstack.spi.Turn;
import dev.memstack.tck.InMemoryReferenceProvider.Flaw;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestExecutionResult.Status;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the kit through the JUnit Platform launcher against providers that break one rule each, and
 * checks that exactly the tests for that rule fail (or, for missing capabilities, are skipped).
 */
class KitCatchesFlawedProvidersTest {

  @Test
  void theIsolationTestsFailOnAProviderThatLeaksPersonalMemory() {
    Map<String, TestExecutionResult> results = run(LeakingKit.class);

    TestExecutionResult isolation = results.get("ownerAsPersonalMemoryNeverAppearsInOwnerBsRecall");
    assertThat(isolation.getStatus()).isEqualTo(Status.FAILED);
    assertThat(isolation.getThrowable()).get().isInstanceOf(AssertionError.class);
    assertThat(statusOf(results, "anOwnerlessRequestNeverReturnsPersonalItems"))
        .isEqualTo(Status.FAILED);
    assertThat(statusOf(results, "marksEveryItemWithItsOwnIdAndTheRequestingOwner"))
        .isEqualTo(Status.FAILED);
    assertThat(statusOf(results, "findsASyncedTurnAgainByAnExactPhrase"))
        .isEqualTo(Status.SUCCESSFUL);
    assertThat(statusOf(results, "storesATurnDeliveredTwiceOnlyOnce")).isEqualTo(Status.SUCCESSFUL);
    assertThat(statusOf(results, "keepsEveryTurnOfABatchForItsOwnOwner")).isEqualTo(Status.FAILED);
  }

  @Test
  void theIdempotencyTestFailsOnAProviderThatStoresARedeliveredTurnAgain() {
    Map<String, TestExecutionResult> results = run(DuplicatingKit.class);

    assertThat(failed(results))
        .containsExactlyInAnyOrder(
            "storesATurnDeliveredTwiceOnlyOnce", "storesATurnOnceWhenBatchesRepeatIt");
  }

  @Test
  void theTwoOwnersTestFailsOnAProviderThatKeysTurnsWithoutTheOwner() {
    Map<String, TestExecutionResult> results = run(OwnerBlindTurnsKit.class);

    assertThat(failed(results)).containsExactly("keepsTheSameTurnIdOfTwoOwnersAsTwoTurns");
  }

  @Test
  void theWriteGuardTestsFailOnAProviderThatIgnoresWhatTheCallerMayWrite() {
    Map<String, TestExecutionResult> results = run(IgnoresWritableKit.class);

    assertThat(failed(results))
        .containsExactlyInAnyOrder(
            "refuseAPersonalOnlyCallerOnATeamRecord",
            "refuseAPersonalOnlyCallerOnAGlobalRecord",
            "refuseAReadOnlyCallerOnATeamRecord");
    assertThat(statusOf(results, "changeTheRecordForACallerWhoMay")).isEqualTo(Status.SUCCESSFUL);
  }

  @Test
  void theAfterCloseTestsFailOnAProviderThatKeepsWorkingAfterClose() {
    Map<String, TestExecutionResult> results = run(WorksAfterCloseKit.class);

    assertThat(failed(results))
        .containsExactly(
            "prefetchFailsWithIllegalStateException", "syncTurnFailsWithIllegalStateException");
  }

  @Test
  void theFeedbackTestsFailOnAProviderThatSharesFeedbackBetweenOwners() {
    Map<String, TestExecutionResult> results = run(SharingFeedbackKit.class);

    assertThat(failed(results))
        .containsExactly(
            "appliesNoUnknownOrForeignId", "oneOwnersFeedbackLeavesAnotherOwnersAnswerUnchanged");
  }

  @Test
  void theVectorTestFailsOnAProviderThatAttachesAnotherModelsVectors() {
    assertThat(failed(run(ForeignVectorsKit.class))).containsExactly("attachesOnlyTheHostsVectors");
  }

  @Test
  void theCoordinationTestsFailOnProvidersThatLeanOnItOrKeepItsLocks() {
    assertThat(failed(run(RecallNeedsCoordinationKit.class)))
        .containsExactly("keepsAnsweringWhileCoordinationIsRefused");
    assertThat(failed(run(KeepsLocksKit.class))).containsExactly("everyLockIsReleasedByClose");
  }

  @Test
  void theRejectionTestsFailOnAProviderThatRefusesWithAPlainException() {
    Map<String, TestExecutionResult> results = run(VagueRejectionKit.class);

    assertThat(failed(results))
        .containsExactlyInAnyOrder(
            "refusesTheTurnAloneAndInABatch", "isParkedByTheOutboxAndTheNextTurnDelivered");
  }

  @Test
  void testsOfUndeclaredCapabilitiesAreSkippedAndTheRestPass() {
    Map<String, TestExecutionResult> results = run(NoCapabilitiesKit.class);

    assertThat(failed(results)).isEmpty();
    assertThat(statusOf(results, "findsASyncedTurnAgainByAnExactPhrase")).isEqualTo(Status.ABORTED);
    assertThat(statusOf(results, "erasesThatOwnerInEveryAgentAndNobodyElse"))
        .isEqualTo(Status.ABORTED);
    assertThat(statusOf(results, "teamMemoryIsVisibleToEveryOwnerOfTheAgent"))
        .isEqualTo(Status.ABORTED);
    assertThat(statusOf(results, "oneOwnersFeedbackLeavesAnotherOwnersAnswerUnchanged"))
        .isEqualTo(Status.ABORTED);
    assertThat(statusOf(results, "appliesNoUnknownOrForeignId")).isEqualTo(Status.ABORTED);
    assertThat(statusOf(results, "isParkedByTheOutboxAndTheNextTurnDelivered"))
        .isEqualTo(Status.ABORTED);
    assertThat(statusOf(results, "ownerAsPersonalMemoryNeverAppearsInOwnerBsRecall"))
        .isEqualTo(Status.SUCCESSFUL);
    assertThat(statusOf(results, "refuseAPersonalOnlyCallerOnATeamRecord"))
        .as("no sharedRecords(): the write-guard tests are skipped")
        .isEqualTo(Status.ABORTED);
  }

  @Test
  void theFullKitPassesOnTheReferenceProviderWhenLaunchedTheSameWay() {
    Map<String, TestExecutionResult> results = run(ReferenceProviderCompatibilityTest.class);

    assertThat(results).hasSizeGreaterThanOrEqualTo(20);
    Map<String, TestExecutionResult> contract = new TreeMap<>(results);
    contract.keySet().removeAll(STANDARD_TOOL_TESTS);
    contract.keySet().removeAll(NOT_CLAIMED_BY_THE_REFERENCE);
    assertThat(contract.values()).allMatch(r -> r.getStatus() == Status.SUCCESSFUL);
    for (String test : STANDARD_TOOL_TESTS) {
      assertThat(statusOf(results, test))
          .as("%s: the reference provider serves no workspace files or memory jobs", test)
          .isEqualTo(Status.ABORTED);
    }
    for (String test : NOT_CLAIMED_BY_THE_REFERENCE) {
      assertThat(statusOf(results, test))
          .as("%s: the reference provider claims none of the SPI 0.5.0 capabilities", test)
          .isEqualTo(Status.ABORTED);
    }
  }

  @Test
  void theStandardToolTestsFailOnAProviderThatClaimsTheCapabilitiesWithoutTheirTools() {
    Map<String, TestExecutionResult> results = run(ClaimsWithoutToolsKit.class);

    assertThat(failed(results)).isEqualTo(STANDARD_TOOL_TESTS);
  }

  @Test
  void theStandardToolTestsPassOnAProviderThatOffersTheToolsWithTheirEffects() {
    Map<String, TestExecutionResult> results = run(StandardToolsKit.class);

    assertThat(failed(results)).isEmpty();
    for (String test : STANDARD_TOOL_TESTS) {
      assertThat(statusOf(results, test)).as(test).isEqualTo(Status.SUCCESSFUL);
    }
  }

  @Test
  void theChecksOfMemoryAdminAndTrustFailOnAProviderThatClaimsThemWithoutServingThem() {
    Map<String, TestExecutionResult> results = run(ClaimsAdminAndTrustWithoutThemKit.class);

    assertThat(failed(results))
        .containsExactlyInAnyOrder(
            "offersTheAdminTools",
            "oneMemorysLife",
            "listsTheAgentsOwnersWithTheirCounts",
            "wrongLowersTheItemForItsOwnerOnly");
  }

  @Test
  void theStandardToolTestsFailOnAProviderThatDeclaresAReadToolAsAWrite() {
    Map<String, TestExecutionResult> results = run(ReadDeclaredAsWriteKit.class);

    assertThat(failed(results)).containsExactly("offersTheWorkspaceTools");
  }

  private static Status statusOf(Map<String, TestExecutionResult> results, String method) {
    assertThat(results).as("kit tests run").containsKey(method);
    return results.get(method).getStatus();
  }

  private static Set<String> failed(Map<String, TestExecutionResult> results) {
    return new TreeMap<>(results)
        .entrySet().stream()
            .filter(e -> e.getValue().getStatus() == Status.FAILED)
            .map(Map.Entry::getKey)
            .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
  }

  /** Runs a kit class and returns each test method's result by method name. */
  private static Map<String, TestExecutionResult> run(Class<?> kit) {
    Map<String, TestExecutionResult> results = new TreeMap<>();
    TestExecutionListener listener =
        new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            id.getSource()
                .filter(MethodSource.class::isInstance)
                .map(MethodSource.class::cast)
                .ifPresent(source -> results.put(source.getMethodName(), result));
          }
        };
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(kit))
                .configurationParameter(OnlyWhenLaunchedBySelfTest.KEY, "true")
                .build(),
            listener);
    assertThat(results).as("tests run by %s", kit.getSimpleName()).isNotEmpty();
    return results;
  }

  /** A kit whose provider writes shared memory by calling the reference provider directly. */
  abstract static class FlawedKit extends MemoryProviderCompatibilityKit {
    @Override
    protected void writeShared(MemoryProvider provider, AgentId agent, Scope scope, String text) {
      ((InMemoryReferenceProvider) provider).writeShared(agent, scope, text);
    }

    @Override
    protected SharedRecords sharedRecords() {
      return ReferenceProviderCompatibilityTest.referenceRecords();
    }

    @Override
    protected Turn turnTheProviderRejects(AgentId agent, OwnerKey owner) {
      return ReferenceProviderCompatibilityTest.unstorable(this, agent, owner);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class VagueRejectionKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(
          context, Flaw.REJECTS_VAGUELY, InMemoryReferenceProvider.ALL_CAPABILITIES);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class LeakingKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(
          context, Flaw.LEAKS_PERSONAL, InMemoryReferenceProvider.ALL_CAPABILITIES);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class DuplicatingKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(
          context, Flaw.STORES_DUPLICATES, InMemoryReferenceProvider.ALL_CAPABILITIES);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class WorksAfterCloseKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(
          context, Flaw.WORKS_AFTER_CLOSE, InMemoryReferenceProvider.ALL_CAPABILITIES);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class ForeignVectorsKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(
          context, Flaw.FOREIGN_VECTORS, InMemoryReferenceProvider.ALL_CAPABILITIES);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class SharingFeedbackKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(
          context, Flaw.SHARES_FEEDBACK, InMemoryReferenceProvider.ALL_CAPABILITIES);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class OwnerBlindTurnsKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(
          context, Flaw.KEYS_TURNS_WITHOUT_OWNER, InMemoryReferenceProvider.ALL_CAPABILITIES);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class RecallNeedsCoordinationKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(
          context, Flaw.RECALL_NEEDS_COORDINATION, InMemoryReferenceProvider.ALL_CAPABILITIES);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class KeepsLocksKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(
          context, Flaw.KEEPS_LOCKS, InMemoryReferenceProvider.ALL_CAPABILITIES);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class IgnoresWritableKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(
          context, Flaw.IGNORES_WRITABLE, InMemoryReferenceProvider.ALL_CAPABILITIES);
    }
  }

  private static final Set<String> STANDARD_TOOL_TESTS =
      new TreeSet<>(Set.of("offersTheWorkspaceTools", "offersTheMemoryJobTools"));

  /**
   * The checks of the SPI 0.5.0 capabilities (LIFECYCLE, CONTRADICTIONS, MEMORY_ADMIN, TRUST),
   * which the in-memory reference provider does not claim: skipped for it (the vector provider's
   * kit run exercises them).
   */
  private static final Set<String> NOT_CLAIMED_BY_THE_REFERENCE =
      new TreeSet<>(
          Set.of(
              "offersTheLifecycleTools",
              "offersTheContradictionTools",
              "offersTheAdminTools",
              "oneMemorysLife",
              "listsTheAgentsOwnersWithTheirCounts",
              "wrongLowersTheItemForItsOwnerOnly"));

  private static final Set<Capability> WITH_STANDARD_TOOLS =
      EnumSet.of(Capability.WORKSPACE_FILES, Capability.MEMORY_JOBS);

  /** The reference provider claiming WORKSPACE_FILES and MEMORY_JOBS, with {@code tools} added. */
  private static MemoryProvider claimingStandardTools(
      ProviderContext context, Function<String, ToolSpec.Effect> effects) {
    Set<Capability> capabilities = EnumSet.copyOf(InMemoryReferenceProvider.ALL_CAPABILITIES);
    capabilities.addAll(WITH_STANDARD_TOOLS);
    return new InMemoryReferenceProvider(context, Flaw.NONE, capabilities) {
      @Override
      public List<ToolSpec> tools() {
        List<ToolSpec> tools = new ArrayList<>(super.tools());
        for (Capability capability : WITH_STANDARD_TOOLS) {
          for (String name : new TreeSet<>(StandardTools.required(capability))) {
            ToolSpec.Effect effect = effects.apply(name);
            if (effect != null) {
              tools.add(new ToolSpec(name, "the standard tool " + name, "{}", effect));
            }
          }
        }
        return tools;
      }
    };
  }

  private static ToolSpec.Effect declaredEffect(String name) {
    return StandardTools.readOnly(name) ? ToolSpec.Effect.READ : ToolSpec.Effect.WRITE;
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class ClaimsWithoutToolsKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return claimingStandardTools(context, name -> null);
    }
  }

  /** Claims MEMORY_ADMIN and TRUST, offers none of the admin tools and applies no wrong. */
  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class ClaimsAdminAndTrustWithoutThemKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      Set<Capability> capabilities = EnumSet.copyOf(InMemoryReferenceProvider.ALL_CAPABILITIES);
      capabilities.add(Capability.MEMORY_ADMIN);
      capabilities.add(Capability.TRUST);
      return new InMemoryReferenceProvider(context, Flaw.NONE, capabilities);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class StandardToolsKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return claimingStandardTools(context, KitCatchesFlawedProvidersTest::declaredEffect);
    }
  }

  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class ReadDeclaredAsWriteKit extends FlawedKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return claimingStandardTools(
          context,
          name ->
              name.equals(StandardTools.READ_WORKSPACE_FILE)
                  ? ToolSpec.Effect.WRITE
                  : declaredEffect(name));
    }
  }

  /** Claims no capability and does not override writeShared. */
  @ExtendWith(OnlyWhenLaunchedBySelfTest.class)
  static class NoCapabilitiesKit extends MemoryProviderCompatibilityKit {
    @Override
    protected MemoryProvider createProvider(ProviderContext context) {
      return new InMemoryReferenceProvider(context, Flaw.NONE, Set.of());
    }
  }
}
