package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.Scope;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Kit checks: TEAM and GLOBAL memory reach every owner of their agent and no other agent. */
abstract class SharedMemoryChecks extends CheckGroup {

  SharedMemoryChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  private static final String TEAM_FACT = "The team mascot is a cobalt walrus named Pemberton.";
  private static final String GLOBAL_FACT = "Headquarters moved to the violet lighthouse in 2026.";

  private void writeSharedAndWait(AgentId agent, Scope scope, String text) {
    assumeCapability(Capability.SHARED_MEMORY);
    writeShared(provider(), agent, scope, text);
    awaitIndexed(provider());
  }

  /** Whether {@code owner} of {@code agent} sees {@code phrase} in recall or the prompt block. */
  private boolean visible(AgentId agent, OwnerKey owner, String phrase) {
    List<RecallItem> items = recall(agent, owner, phrase, 10);
    assertWellFormed(items, owner, 10);
    boolean recalled =
        items.stream().anyMatch(item -> item.scope() != Scope.PERSONAL && mentions(item, phrase));
    return recalled || mentions(provider().systemPromptBlock(agent), phrase);
  }

  @Test
  @DisplayName("team memory is visible to every owner of the agent")
  void teamMemoryIsVisibleToEveryOwnerOfTheAgent() {
    assertVisibleToEveryOwner(Scope.TEAM, TEAM_FACT, "cobalt walrus");
  }

  @Test
  @DisplayName("global memory is visible to every owner of the agent")
  void globalMemoryIsVisibleToEveryOwnerOfTheAgent() {
    assertVisibleToEveryOwner(Scope.GLOBAL, GLOBAL_FACT, "violet lighthouse");
  }

  private void assertVisibleToEveryOwner(Scope scope, String fact, String phrase) {
    writeSharedAndWait(AGENT, scope, fact);

    for (OwnerKey owner : new OwnerKey[] {ALICE, BOB, null}) {
      assertThat(visible(AGENT, owner, phrase))
          .as("%s memory visible to %s in recall or system prompt block", scope, owner)
          .isTrue();
    }
  }

  @Test
  @DisplayName("team memory of one agent stays out of another agent's memory")
  void teamMemoryOfOneAgentStaysOutOfAnotherAgentsMemory() {
    writeSharedAndWait(AGENT, Scope.TEAM, TEAM_FACT);

    assertNotRecalled(OTHER_AGENT, ALICE, "cobalt walrus", 10, "another agent's recall");
    assertThat(provider().systemPromptBlock(OTHER_AGENT))
        .doesNotContainIgnoringCase("cobalt walrus");
  }

  @Test
  @DisplayName("a shared write that changes the system prompt block tells the host")
  void aSharedWriteThatChangesTheSystemPromptBlockTellsTheHost() {
    String before = provider().systemPromptBlock(AGENT);
    context().clearSystemPromptChanges();
    writeSharedAndWait(AGENT, Scope.TEAM, TEAM_FACT);

    String after = provider().systemPromptBlock(AGENT);
    assumeTrue(
        !after.equals(before),
        provider().id() + " keeps shared memory out of the system prompt block; nothing to tell");
    assertThat(context().systemPromptChangedFor(AGENT))
        .as("systemPromptChanged(%s or null) called after the block changed", AGENT)
        .isTrue();
  }
}
