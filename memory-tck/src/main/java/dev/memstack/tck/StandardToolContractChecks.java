package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.Capability;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolSpec;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Kit checks: a claimed capability brings its standard tools with their effects. */
abstract class StandardToolContractChecks extends CheckGroup {

  StandardToolContractChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

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

  @Test
  @DisplayName("a LIFECYCLE provider offers every lifecycle tool with its effect")
  void offersTheLifecycleTools() {
    assumeCapability(Capability.LIFECYCLE);
    assertOffersStandardTools(Capability.LIFECYCLE);
  }

  @Test
  @DisplayName("a CONTRADICTIONS provider offers the inbox tools with their effects")
  void offersTheContradictionTools() {
    assumeCapability(Capability.CONTRADICTIONS);
    assertOffersStandardTools(Capability.CONTRADICTIONS);
  }

  private void assertOffersStandardTools(Capability capability) {
    Map<String, ToolSpec> offered = new HashMap<>();
    for (ToolSpec spec : provider().tools()) {
      offered.put(spec.name(), spec);
    }
    assertThat(offered.keySet())
        .as("tools of %s, which claims %s", provider().id(), capability)
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
