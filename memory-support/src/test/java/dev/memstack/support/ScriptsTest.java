package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ScriptsTest {

  @Test
  void cjkIsHanKanaAndHangul() {
    assertThat(Scripts.isCjk("中".codePointAt(0))).isTrue();
    assertThat(Scripts.isCjk("ひ".codePointAt(0))).isTrue();
    assertThat(Scripts.isCjk("カ".codePointAt(0))).isTrue();
    assertThat(Scripts.isCjk("한".codePointAt(0))).isTrue();
    assertThat(Scripts.isCjk('a')).isFalse();
    assertThat(Scripts.isCjk("я".codePointAt(0))).isFalse();
    assertThat(Scripts.isCjk('7')).isFalse();
  }
}
