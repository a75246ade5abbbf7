package dev.memstack.builtin.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DenseSettingsTest {

  private static ProviderConfig config(Map<String, String> values) {
    return ProviderConfig.of("memstack.providers.builtin.config.", values);
  }

  @Test
  @DisplayName("defaults: the dense view on, weight 3, k 20, threshold 0.3")
  void defaults() {
    DenseSettings settings = DenseSettings.defaults();
    assertThat(settings).isEqualTo(new DenseSettings(true, 3.0, 20, 0.3, 100));
    assertThat(settings.searched()).isTrue();
    assertThat(DenseSettings.off().enabled()).isFalse();
  }

  @Test
  @DisplayName("reads every key; weight 0 keeps the view but does not search it")
  void readsKeys() {
    DenseSettings settings =
        DenseSettings.from(
            config(
                Map.of(
                    "dense", "true",
                    "dense-weight", "0",
                    "dense-fusion-k", "60",
                    "dense-threshold", "0.5",
                    "dense-candidates", "7")));
    assertThat(settings).isEqualTo(new DenseSettings(true, 0, 60, 0.5, 7));
    assertThat(settings.searched()).isFalse();
  }

  @Test
  @DisplayName("names the key of a value out of range")
  void refusesBadValues() {
    assertThatThrownBy(() -> DenseSettings.from(config(Map.of("dense-weight", "-1"))))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("dense-weight");
    assertThatThrownBy(() -> DenseSettings.from(config(Map.of("dense-threshold", "2"))))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("dense-threshold");
    assertThatThrownBy(() -> DenseSettings.from(config(Map.of("dense-fusion-k", "0"))))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("dense-fusion-k");
  }
}
