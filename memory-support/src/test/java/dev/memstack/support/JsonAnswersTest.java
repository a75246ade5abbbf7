package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonAnswersTest {

  @Test
  void readsBareFencedAndProseWrappedObjects() {
    assertThat(JsonAnswers.object("{\"a\":1}").orElseThrow().get("a").asInt()).isEqualTo(1);
    assertThat(
            JsonAnswers.object("Sure:\n```json\n{\"a\":2}\n```\nDone.")
                .orElseThrow()
                .get("a")
                .asInt())
        .isEqualTo(2);
    assertThat(
            JsonAnswers.object("I think {not json} then {\"a\":\"}{\"} ok")
                .orElseThrow()
                .get("a")
                .asString())
        .isEqualTo("}{");
  }

  @Test
  void arraysOnlyWhenAsked() {
    assertThat(JsonAnswers.object("[1,2]")).isEmpty();
    assertThat(JsonAnswers.value("here [1,2] it is").orElseThrow().isArray()).isTrue();
    assertThat(JsonAnswers.value("nothing here")).isEmpty();
    assertThat(JsonAnswers.value(null)).isEmpty();
  }
}
