package dev.memstack.builtin.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.spi.SharedDatabase;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The store keys, with and without shared mode (no database needed). */
class StoreSettingsTest {

  static final SharedDatabase SHARED =
      new SharedDatabase("jdbc:postgresql://db:5432/memstack", "mem", "secret");

  static StoreSettings read(Map<String, String> values, String id, SharedDatabase shared) {
    return StoreSettings.from(
        ProviderConfig.of("memstack.providers." + id + ".config", values),
        id,
        Optional.ofNullable(shared));
  }

  @Test
  void filesByDefaultAndPostgresInSharedModeWithItsConnection() {
    assertThat(read(Map.of(), "builtin", null).kind()).isEqualTo(StoreSettings.Kind.FILES);
    PgSettings pg = read(Map.of(), "team-notes", SHARED).postgres().orElseThrow();
    assertThat(pg.jdbcUrl()).isEqualTo(SHARED.jdbcUrl());
    assertThat(pg.username()).isEqualTo("mem");
    assertThat(pg.password()).isEqualTo("secret");
    assertThat(pg.tablePrefix()).isEqualTo("team_notes_");
    assertThat(pg.schema()).isEqualTo("public");
    assertThat(pg.toString()).doesNotContain("secret");
  }

  @Test
  void anOwnUrlDoesNotTakeTheSharedCredentials() {
    PgSettings pg =
        read(Map.of("jdbc-url", "jdbc:postgresql://other/db"), "builtin", SHARED)
            .postgres()
            .orElseThrow();
    assertThat(pg.username()).isNull();
    assertThat(pg.password()).isNull();
  }

  @Test
  void wrongValuesNameTheirKey() {
    assertThatThrownBy(() -> read(Map.of("store", "files"), "builtin", SHARED))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("memstack.providers.builtin.config.store")
        .hasMessageContaining("shared mode");
    assertThatThrownBy(() -> read(Map.of("store", "sqlite"), "builtin", null))
        .hasMessageContaining("memstack.providers.builtin.config.store")
        .hasMessageContaining("files or postgres");
    assertThatThrownBy(() -> read(Map.of("store", "postgres"), "builtin", null))
        .hasMessageContaining("memstack.providers.builtin.config.jdbc-url")
        .hasMessageContaining("required");
    assertThatThrownBy(
            () -> read(Map.of("store", "postgres", "jdbc-url", "jdbc:mysql://x"), "b", null))
        .hasMessageContaining("must start with jdbc:postgresql:");
    assertThatThrownBy(() -> read(Map.of("schema", "Bad-Name"), "builtin", SHARED))
        .hasMessageContaining("memstack.providers.builtin.config.schema");
    assertThatThrownBy(() -> read(Map.of(), "1st", SHARED))
        .hasMessageContaining("memstack.providers.1st.config.table-prefix")
        .hasMessageContaining("default made from the instance id");
    assertThatThrownBy(() -> read(Map.of("pool-size", "0"), "builtin", SHARED))
        .hasMessageContaining("memstack.providers.builtin.config.pool-size");
    assertThatThrownBy(() -> read(Map.of("schema", "x"), "builtin", null))
        .hasMessageContaining("memstack.providers.builtin.config.schema")
        .hasMessageContaining("only applies with");
  }
}
