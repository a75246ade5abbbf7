package dev.memstack.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.spi.SharedDatabase;
import dev.memstack.tck.TestProviderContext;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SharedModeStoreTest {

  private static final String PREFIX = "memstack.providers.vector.config";
  private static final Optional<SharedDatabase> SHARED =
      Optional.of(new SharedDatabase("jdbc:postgresql://db:5432/memstack", "memstack", "s3cret"));

  private static ProviderConfig config(Map<String, String> values) {
    return ProviderConfig.of(PREFIX, values);
  }

  @Test
  void withoutASharedDatabaseTheConfigurationIsKept() {
    ProviderConfig config = config(Map.of("store", "embedded"));
    assertThat(SharedModeStore.apply(config, "vector", Optional.empty())).isSameAs(config);
  }

  @Test
  void anUnsetStoreBecomesPgvectorOnTheSharedDatabase() {
    ProviderConfig applied = SharedModeStore.apply(config(Map.of("top-k", "20")), "vector", SHARED);
    assertThat(applied.asMap())
        .containsEntry("store", "pgvector")
        .containsEntry("jdbc-url", "jdbc:postgresql://db:5432/memstack")
        .containsEntry("username", "memstack")
        .containsEntry("password", "s3cret")
        .containsEntry("top-k", "20")
        .doesNotContainKey("table");
    assertThat(applied.fullKey("jdbc-url")).isEqualTo(PREFIX + ".jdbc-url");
  }

  @Test
  void eachConnectionKeyStaysOverridable() {
    ProviderConfig applied =
        SharedModeStore.apply(
            config(Map.of("username", "vector_user", "password", "other", "schema", "mine")),
            "vector",
            SHARED);
    assertThat(applied.asMap())
        .containsEntry("jdbc-url", "jdbc:postgresql://db:5432/memstack")
        .containsEntry("username", "vector_user")
        .containsEntry("password", "other")
        .containsEntry("schema", "mine");

    ProviderConfig ownDatabase =
        SharedModeStore.apply(
            config(Map.of("store", "pgvector", "jdbc-url", "jdbc:postgresql://vectors/db")),
            "vector",
            SHARED);
    assertThat(ownDatabase.asMap())
        .containsEntry("jdbc-url", "jdbc:postgresql://vectors/db")
        .as("the shared credentials do not go to another database")
        .doesNotContainKeys("username", "password");
  }

  @Test
  void aSecondInstanceGetsATableOfItsOwn() {
    assertThat(SharedModeStore.apply(config(Map.of()), "Notes-2", SHARED).asMap())
        .containsEntry("table", "vector_memory_notes_2");
    assertThat(SharedModeStore.apply(config(Map.of("table", "chosen")), "notes", SHARED).asMap())
        .containsEntry("table", "chosen");
  }

  @Test
  void theEmbeddedStoreIsRefusedNamingTheKeyAndWhy() {
    assertThatThrownBy(
            () -> SharedModeStore.apply(config(Map.of("store", "Embedded")), "vector", SHARED))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining(PREFIX + ".store")
        .hasMessageContaining("shared mode")
        .hasMessageContaining("the other hosts could not see")
        .satisfies(
            e -> assertThat(((ProviderConfigException) e).key()).isEqualTo(PREFIX + ".store"))
        .message()
        .doesNotContain("s3cret");
  }

  @Test
  void theFactoryRefusesTheEmbeddedStoreInSharedMode() {
    TestProviderContext context =
        TestProviderContext.builder()
            .instanceId("vector")
            .config(Map.of("store", "embedded"))
            .sharedDatabase(SHARED.get())
            .build();
    assertThatThrownBy(() -> new VectorMemoryProviderFactory().create(context))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining(PREFIX + ".store");
  }
}
