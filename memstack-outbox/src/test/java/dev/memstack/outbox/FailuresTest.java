package dev.memstack.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FailuresTest {

  @Test
  void secretsInFailureMessagesAreMasked() {
    String text =
        Failures.describe(
            new IllegalStateException(
                "POST https://admin:pa55@mem0.example/v1?api_key=abc123&x=1 failed;"
                    + " Authorization: Bearer tok-987, password=hunter2, token: 'xyz'"));

    assertThat(text)
        .startsWith("java.lang.IllegalStateException: POST https://***@mem0.example")
        .doesNotContain("pa55", "abc123", "tok-987", "hunter2", "xyz")
        .contains("failed");
  }

  @Test
  void longMessagesAreCutAndLineBreaksFlattened() {
    String text = Failures.redact("line one\nline two " + "x".repeat(1000));
    assertThat(text)
        .hasSizeLessThanOrEqualTo(300)
        .doesNotContain("\n")
        .startsWith("line one line two");
  }
}
