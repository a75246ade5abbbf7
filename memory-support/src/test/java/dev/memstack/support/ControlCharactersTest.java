package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ControlCharactersTest {

  @Test
  void tabLineFeedAndCarriageReturnAreText() {
    assertThat(ControlCharacters.find("a\tb\nc\r\nd 张三 é")).isEqualTo(-1);
    assertThat(ControlCharacters.problem("text", "a\tb")).isNull();
  }

  @Test
  void nulC0AndC1AreRefused() {
    assertThat(ControlCharacters.find("a\u0000b")).isEqualTo(1);
    assertThat(ControlCharacters.find("ab\u001b[31m")).isEqualTo(2);
    assertThat(ControlCharacters.find("\u0007")).isEqualTo(0);
    assertThat(ControlCharacters.find("x\u007f")).isEqualTo(1);
    assertThat(ControlCharacters.find("x\u0085")).isEqualTo(1);
    assertThat(ControlCharacters.find("x\u009f")).isEqualTo(1);
    assertThat(ControlCharacters.find("x\u00a0")).isEqualTo(-1);
    assertThat(ControlCharacters.problem("userMessage", "a\u001bb"))
        .startsWith("userMessage must not contain")
        .contains("U+001B at index 1");
  }

  @Test
  void stripKeepsEverythingElse() {
    assertThat(ControlCharacters.strip("a\u0000b\u001b[31mc\td\u0085")).isEqualTo("ab[31mc\td");
    String clean = "no controls\n";
    assertThat(ControlCharacters.strip(clean)).isSameAs(clean);
    assertThat(ControlCharacters.strip(null)).isNull();
  }
}
