package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MemoryContextFenceTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "<memory-context>",
        "</memory-context>",
        "<MEMORY-CONTEXT>",
        "< memory-context >",
        "</ Memory-Context >",
        "<memory-context source=\"vector\" x='1'>",
        "&lt;memory-context&gt;",
        "&lt;/memory-context&gt;",
        "&#60;memory-context&#62;",
        "&#x3C;/memory-context&#x3E;",
        "\\u003cmemory-context\\u003e",
        "<memory_context>",
        "<memory-context",
        "memory-context>",
        "/memory-context>",
        "<memory-<memory-context>context>"
      })
  void everyVariantOfTheTagIsStrippedFromARecalledText(String tag) {
    String cleaned = MemoryContextFence.stripTags("before " + tag + " after");

    assertThat(cleaned).startsWith("before").endsWith("after");
    assertThat(cleaned.toLowerCase())
        .doesNotContain("memory-context")
        .doesNotContain("memory_context");
    assertThat(MemoryContextFence.containsTag(cleaned)).isFalse();
  }

  @Test
  void ordinaryTextIsLeftAlone() {
    String text = "We discussed the memory context window and a < b > c comparison.";

    assertThat(MemoryContextFence.stripTags(text)).isEqualTo(text);
    assertThat(MemoryContextFence.stripBlocks(text)).isEqualTo(text);
  }

  @Test
  void aWholeFencedBlockIsRemovedFromAUserMessage() {
    String message =
        "<memory-context>\n"
            + MemoryContextFence.HEADER
            + "\n- [2026-03-02] (vector, personal) Likes tea\n</memory-context>\n\nWhat should I drink?";

    assertThat(MemoryContextFence.stripBlocks(message)).isEqualTo("What should I drink?");
  }

  @Test
  void severalBlocksInAnyCaseAndEscapedAreRemovedAndTheUserTextBetweenThemKept() {
    String message =
        "<Memory-Context a=\"1\">old fact</memory-context>Hello "
            + "&lt;memory-context&gt;escaped fact&lt;/memory-context&gt;world";

    assertThat(MemoryContextFence.stripBlocks(message)).isEqualTo("Hello \nworld");
  }

  @Test
  void aBlockCutShortRemovesWhatBelongsToIt() {
    assertThat(
            MemoryContextFence.stripBlocks(
                "Question first\n<memory-context>\n- fact that never ends"))
        .isEqualTo("Question first");
    assertThat(MemoryContextFence.stripBlocks("- fact\n</memory-context>\nThe real question"))
        .isEqualTo("The real question");
  }
}
