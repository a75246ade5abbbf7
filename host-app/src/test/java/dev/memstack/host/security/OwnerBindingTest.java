package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.OwnerKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OwnerBindingTest {

  @Test
  void anOwnerKeyBindingCoversThatOwnerOnly() {
    OwnerBinding binding = OwnerBinding.of("api:42");

    assertThat(binding.isPrefix()).isFalse();
    assertThat(binding.covers(OwnerKey.of("api:42"))).isTrue();
    assertThat(binding.covers(OwnerKey.of("api:420"))).isFalse();
    assertThat(binding.covers(OwnerKey.of("api:4"))).isFalse();
    assertThat(binding.covers(OwnerKey.of("user:42"))).isFalse();
    assertThat(binding.covers(OwnerKey.SYSTEM)).isFalse();
  }

  @Test
  void aPrefixBindingCoversEveryOwnerKeyThatStartsWithIt() {
    OwnerBinding platform = OwnerBinding.of("api:*");
    OwnerBinding team = OwnerBinding.of("api:team7-*");

    assertThat(platform.isPrefix()).isTrue();
    assertThat(platform.covers(OwnerKey.of("api:9"))).isTrue();
    assertThat(platform.covers(OwnerKey.of("api:end-user-7"))).isTrue();
    assertThat(platform.covers(OwnerKey.of("user:1"))).isFalse();
    assertThat(platform.covers(OwnerKey.of("apix:1"))).isFalse();
    assertThat(platform.covers(OwnerKey.SYSTEM)).isFalse();
    assertThat(team.covers(OwnerKey.of("api:team7-anna"))).isTrue();
    assertThat(team.covers(OwnerKey.of("api:team8-anna"))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "*", "api*", ":*", "API:*", "api:*x*", "api:4*2", "a b:*", "api:x y"})
  void anythingElseIsRejected(String pattern) {
    assertThatThrownBy(() -> OwnerBinding.of(pattern)).isInstanceOf(IllegalArgumentException.class);
  }
}
