package dev.memstack.builtin.extraction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ModelAnswersTest {

  @Test
  void aFencedAnswerIsRead() {
    var summary =
        ModelAnswers.summary(
                "```json\n{\"should_update\": true, \"reason\": \"r\", \"profile_update\":"
                    + " \"# Profile {x}\"}\n```")
            .orElseThrow();

    assertThat(summary.shouldUpdate()).isTrue();
    assertThat(summary.profileUpdate()).isEqualTo("# Profile {x}");
    assertThat(summary.memoryUpdate()).isEmpty();
    assertThat(summary.dailyEntry()).isEmpty();
  }

  @Test
  void proseAroundTheJsonIsIgnored() {
    var emergence =
        ModelAnswers.emergence(
                "Sure! Here is {my answer}:\n{\"should_update\": \"true\", \"memory_content\":"
                    + " \"## A\\nb\"}\nHope this helps.")
            .orElseThrow();

    assertThat(emergence.shouldUpdate()).isTrue();
    assertThat(emergence.memoryContent()).isEqualTo("## A\nb");
    assertThat(emergence.reason()).isEmpty();
  }

  @Test
  void anAnswerWithoutJsonIsEmpty() {
    assertThat(ModelAnswers.summary("I cannot help with that.")).isEmpty();
    assertThat(ModelAnswers.summary("{\"should_update\": tru")).isEmpty();
    assertThat(ModelAnswers.summary(null)).isEmpty();
  }
}
