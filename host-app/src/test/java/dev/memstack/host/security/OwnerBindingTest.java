package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.OwnerKey;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class OwnerBindingTest {

  @ParameterizedTest(name = "{0} covers {1}: {2}")
  @CsvSource({
    "api:42, api:42, true",
    "api:42, api:420, false",
    "api:42, api:4, false",
    "api:42, user:42, false",
    "api:*, api:9, true",
    "api:*, api:end-user-7, true",
    "api:*, user:1, false",
    "api:*, apix:1, false",
    "api:team7-*, api:team7-anna, true",
    "api:team7-*, api:team8-anna, false"
  })
  void aBindingCoversItsOwnerKeyOrEveryOwnerKeyThatStartsWithItsPrefix(
      String pattern, String owner, boolean covered) {
    assertThat(OwnerBinding.of(pattern).covers(OwnerKey.of(owner))).isEqualTo(covered);
  }

  @ParameterizedTest(name = "{0} is a prefix: {1}, covers the system owner: false")
  @CsvSource({"api:42, false", "api:*, true"})
  void onlyAStarMakesAPrefixAndNoBindingCoversTheSystemOwner(String pattern, boolean prefix) {
    OwnerBinding binding = OwnerBinding.of(pattern);
    assertThat(binding.isPrefix()).isEqualTo(prefix);
    assertThat(binding.covers(OwnerKey.SYSTEM)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "*", "api*", ":*", "API:*", "api:*x*", "api:4*2", "a b:*", "api:x y"})
  void anythingElseIsRejected(String pattern) {
    assertThatThrownBy(() -> OwnerBinding.of(pattern)).isInstanceOf(IllegalArgumentException.class);
  }
}
