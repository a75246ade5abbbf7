package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsolidationSettingsTest {

  private static ProviderConfig config(Map<String, String> values) {
    return ProviderConfig.of("memstack.providers.p.config", values);
  }

  @Test
  void theDefaultsRunNightlyAtHalfPastThreeOnEightEntriesAndFiftyOwners() {
    ConsolidationSettings defaults = ConsolidationSettings.defaults();

    assertThat(defaults.enabled()).isTrue();
    assertThat(defaults.minEntries()).isEqualTo(8);
    assertThat(defaults.maxOwners()).isEqualTo(50);
    assertThat(defaults.cron().next(ZonedDateTime.of(2026, 4, 1, 9, 0, 0, 0, ZoneOffset.UTC)))
        .isEqualTo(ZonedDateTime.of(2026, 4, 2, 3, 30, 0, 0, ZoneOffset.UTC));
  }

  @Test
  void eachKeyIsReadAndABadValueNamesItsKey() {
    ConsolidationSettings read =
        ConsolidationSettings.from(
            config(
                Map.of(
                    "structured-consolidation-enabled", "false",
                    "structured-consolidation-cron", "0 0 4 * * SUN",
                    "structured-consolidation-min-entries", "3",
                    "structured-consolidation-max-owners-per-run", "0")));

    assertThat(read.enabled()).isFalse();
    assertThat(read.cron()).hasToString("0 0 4 * * SUN");
    assertThat(read.minEntries()).isEqualTo(3);
    assertThat(read.maxOwners()).isZero();
    assertThat(ConsolidationSettings.KEYS).hasSize(4);
    assertThatThrownBy(
            () ->
                ConsolidationSettings.from(
                    config(Map.of("structured-consolidation-cron", "03:30"))))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("memstack.providers.p.config.structured-consolidation-cron");
    assertThatThrownBy(
            () ->
                ConsolidationSettings.from(
                    config(Map.of("structured-consolidation-min-entries", "0"))))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("structured-consolidation-min-entries");
  }
}
