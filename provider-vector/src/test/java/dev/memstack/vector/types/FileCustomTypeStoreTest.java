package dev.memstack.vector.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.vector.store.MemoryRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Custom memory types in a file beside the embedded store")
class FileCustomTypeStoreTest {

  private static final AgentId AGENT = AgentId.of("assistant");
  private static final AgentId OTHER = AgentId.of("other");

  @TempDir Path root;

  @Test
  @DisplayName("the built-in types are the record's known types")
  void theBuiltInTypesAreTheKnownTypes() {
    assertThat(MemoryType.BUILT_IN)
        .extracting(MemoryType::key)
        .containsExactlyInAnyOrderElementsOf(MemoryRecord.KNOWN_TYPES);
    assertThat(MemoryType.BUILT_IN).allMatch(MemoryType::system);
  }

  @Test
  @DisplayName("keeps each agent's types across a reopen, and ignores a torn temporary file")
  void keepsTypesAcrossAReopen() throws Exception {
    FileCustomTypeStore store = FileCustomTypeStore.open(root);
    assertThat(store.create(AGENT, MemoryType.custom("recipe", "Recipe", "Dishes", "🍳"), 10))
        .isEqualTo(CustomTypeStore.Outcome.CREATED);
    store.create(OTHER, MemoryType.custom("TRIP", "Trip", null, null), 10);
    Files.writeString(root.resolve(".types.json.1234.tmp"), "{\"agents\": {\"ass");

    FileCustomTypeStore reopened = FileCustomTypeStore.open(root);

    assertThat(reopened.list(AGENT))
        .containsExactly(new MemoryType("RECIPE", "Recipe", "Dishes", "🍳", false));
    assertThat(reopened.find(OTHER, "TRIP")).isPresent();
    assertThat(reopened.find(AGENT, "TRIP")).isEmpty();
    assertThat(Files.list(root).map(p -> p.getFileName().toString()))
        .containsExactly(FileCustomTypeStore.FILE);
  }

  @Test
  @DisplayName("an existing key or a full agent changes nothing")
  void anExistingKeyOrAFullAgentChangesNothing() {
    FileCustomTypeStore store = FileCustomTypeStore.open(root);
    store.create(AGENT, MemoryType.custom("A", "A", null, null), 2);

    assertThat(store.create(AGENT, MemoryType.custom("a", "Other", null, null), 2))
        .isEqualTo(CustomTypeStore.Outcome.EXISTS);
    store.create(AGENT, MemoryType.custom("B", "B", null, null), 2);
    assertThat(store.create(AGENT, MemoryType.custom("C", "C", null, null), 2))
        .isEqualTo(CustomTypeStore.Outcome.FULL);
    assertThat(store.list(AGENT)).extracting(MemoryType::name).containsExactly("A", "B");
    assertThat(store.delete(AGENT, "A")).isTrue();
    assertThat(store.delete(AGENT, "A")).isFalse();
  }

  @Test
  @DisplayName("a built-in type is neither created nor deleted through the registry")
  void theRegistryProtectsBuiltInTypes() {
    MemoryTypes types = new MemoryTypes(FileCustomTypeStore.open(root));

    assertThat(types.create(AGENT, MemoryType.custom("FACT", "Mine", null, null)))
        .isEqualTo(CustomTypeStore.Outcome.EXISTS);
    assertThatThrownBy(() -> types.delete(AGENT, "FACT"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("FACT");
    assertThat(types.all(AGENT)).hasSize(MemoryType.BUILT_IN.size());
  }
}
