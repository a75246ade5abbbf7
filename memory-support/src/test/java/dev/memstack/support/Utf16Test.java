package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class Utf16Test {

  @Test
  void findsTheFirstLoneSurrogateAndPassesPairs() {
    assertThat(Utf16.loneSurrogate("plain")).isEqualTo(-1);
    assertThat(Utf16.loneSurrogate("emoji \uD83D\uDE00 ok")).isEqualTo(-1);
    assertThat(Utf16.loneSurrogate("x\uD800y")).isEqualTo(1);
    assertThat(Utf16.loneSurrogate("\uDC00")).isZero();
    assertThat(Utf16.loneSurrogate("end\uD800")).isEqualTo(3);
    assertThat(Utf16.loneSurrogate("\uD83D\uDE00\uDE00")).isEqualTo(2);
  }
}
