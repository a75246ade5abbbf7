package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.RecallItem;
import dev.memstack.spi.ToolSpec;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Kit checks: identity, health, capabilities and tools of a fresh provider. */
abstract class BasicsChecks extends CheckGroup {

  BasicsChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("reports the instance id it was configured with")
  void reportsTheInstanceIdItWasConfiguredWith() {
    assertThat(provider().id()).isEqualTo(context().instanceId());
  }

  @Test
  @DisplayName("answers health and capabilities without throwing")
  void answersHealthAndCapabilitiesWithoutThrowing() {
    assertThat(provider().health()).isNotNull();
    assertThat(provider().capabilities()).isNotNull();
  }

  @Test
  @DisplayName("offers tools with unique names")
  void offersToolsWithUniqueNames() {
    List<ToolSpec> tools = provider().tools();
    assertThat(tools).isNotNull();
    assertThat(tools.stream().map(ToolSpec::name)).doesNotHaveDuplicates();
  }

  @Test
  @DisplayName("declares the effect of every tool")
  void declaresTheEffectOfEveryTool() {
    assertThat(provider().tools())
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
