package dev.memstack.builtin.store.files;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.OwnerKey;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OwnerDirectoryNameTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "system",
        "user:42",
        "api:end-user_7",
        "slack:U123ABC",
        "feishu:ou_9f..x",
        "web:../../etc",
        "mail:a/b\\c%2e",
        "wx:张三"
      })
  @DisplayName("encodes owner keys to safe names and back")
  void roundTrips(String key) {
    OwnerKey owner = OwnerKey.of(key);
    String name = OwnerDirectoryName.encode(owner);

    assertThat(name).matches("[a-z0-9_%A-F-]+");
    assertThat(name).doesNotContain("..").doesNotContain("/");
    assertThat(OwnerDirectoryName.decode(name)).contains(owner);
  }

  @Test
  @DisplayName("keeps keys that differ only in case apart")
  void keepsCaseApart() {
    assertThat(OwnerDirectoryName.encode(OwnerKey.of("slack:Bob")))
        .isNotEqualToIgnoringCase(OwnerDirectoryName.encode(OwnerKey.of("slack:bob")));
    assertThat(OwnerDirectoryName.encode(OwnerKey.of("user:42"))).isEqualTo("user%3A42");
  }

  @Test
  @DisplayName("shortens very long keys with a hash that cannot be decoded alone")
  void shortensLongKeys() {
    OwnerKey a = OwnerKey.of("api:" + "Z".repeat(200));
    OwnerKey b = OwnerKey.of("api:" + "Z".repeat(199) + "Y");

    String name = OwnerDirectoryName.encode(a);
    assertThat(name.length()).isLessThanOrEqualTo(OwnerDirectoryName.MAX_LENGTH);
    assertThat(name).isNotEqualTo(OwnerDirectoryName.encode(b));
    assertThat(OwnerDirectoryName.decode(name)).isEmpty();
  }

  @Test
  @DisplayName("does not decode names it would not have produced")
  void rejectsForeignNames() {
    assertThat(OwnerDirectoryName.decode("user:42")).isEmpty();
    assertThat(OwnerDirectoryName.decode("user%3a42")).isEmpty();
    assertThat(OwnerDirectoryName.decode("not-a-key")).isEmpty();
  }
}
