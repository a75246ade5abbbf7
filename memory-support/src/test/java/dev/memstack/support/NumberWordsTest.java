package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NumberWordsTest {

  @Test
  void readsWordsUpToAMillion() {
    assertThat(NumberWords.VALUES)
        .containsEntry("zero", 0)
        .containsEntry("nineteen", 19)
        .containsEntry("twenty", 20)
        .containsEntry("ninety", 90)
        .containsEntry("hundred", 100)
        .containsEntry("million", 1_000_000)
        .hasSize(31);
  }
}
