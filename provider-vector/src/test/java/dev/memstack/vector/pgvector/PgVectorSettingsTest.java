package dev.memstack.vector.pgvector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("pgvector settings")
class PgVectorSettingsTest {

  private static final String PREFIX = "memstack.providers.vector.config";

  private static PgVectorSettings read(Map<String, String> values) {
    return PgVectorSettings.from(ProviderConfig.of(PREFIX, values));
  }

  @Test
  @DisplayName("defaults everything but the JDBC URL")
  void defaults() {
    PgVectorSettings settings = read(Map.of("jdbc-url", "jdbc:postgresql://db:5432/memstack"));

    assertThat(settings.schema()).isEqualTo("memstack");
    assertThat(settings.table()).isEqualTo("vector_memory");
    assertThat(settings.username()).isNull();
    assertThat(settings.exactSearchLimit()).isEqualTo(PgVectorSettings.DEFAULT_EXACT_SEARCH_LIMIT);
    assertThat(settings.textSearchConfig()).isEqualTo("english");
  }

  @Test
  @DisplayName("a missing or foreign URL is an error naming the full key")
  void urlIsRequired() {
    assertThatThrownBy(() -> read(Map.of()))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageStartingWith(PREFIX + ".jdbc-url");
    assertThatThrownBy(() -> read(Map.of("jdbc-url", "jdbc:mysql://db/x?password=hunter2")))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining(PREFIX + ".jdbc-url")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  @DisplayName("schema and table must be plain SQL names")
  void namesAreChecked() {
    assertThatThrownBy(
            () ->
                read(Map.of("jdbc-url", "jdbc:postgresql://db/x", "table", "memory; DROP TABLE x")))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageStartingWith(PREFIX + ".table");
    assertThatThrownBy(
            () -> read(Map.of("jdbc-url", "jdbc:postgresql://db/x", "schema", "Memstack")))
        .hasMessageStartingWith(PREFIX + ".schema");
  }

  @Test
  @DisplayName("numbers are range-checked, HNSW build settings against each other")
  void numbersAreChecked() {
    assertThatThrownBy(() -> read(Map.of("jdbc-url", "jdbc:postgresql://db/x", "pool-size", "0")))
        .hasMessageStartingWith(PREFIX + ".pool-size");
    assertThatThrownBy(
            () ->
                read(
                    Map.of(
                        "jdbc-url",
                        "jdbc:postgresql://db/x",
                        "hnsw-m",
                        "32",
                        "hnsw-ef-construction",
                        "40")))
        .hasMessageStartingWith(PREFIX + ".hnsw-ef-construction");
  }

  @Test
  @DisplayName("never prints the password, in the URL or the key")
  void secretsStaySecret() {
    PgVectorSettings settings =
        read(
            Map.of(
                "jdbc-url",
                "jdbc:postgresql://db/x?user=me&password=hunter2&ssl=true",
                "password",
                "s3cret"));

    assertThat(settings.toString())
        .doesNotContain("hunter2")
        .doesNotContain("s3cret")
        .contains("password=****");
    assertThat(settings.safeUrl())
        .isEqualTo("jdbc:postgresql://db/x?user=me&password=****&ssl=true");
  }
}
