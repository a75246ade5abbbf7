package dev.memstack.builtin.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.builtin.workspace.WorkspacePath;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SizeCapsTest {

  SizeCaps caps = new SizeCaps(300, 0, 2000);

  @Test
  @DisplayName("keeps content within the cap as it is")
  void keepsShortContent() {
    SizeCaps.Capped capped = caps.apply(WorkspacePath.of("PROFILE.md"), "## A\nshort\n");
    assertThat(capped.truncated()).isFalse();
    assertThat(capped.content()).isEqualTo("## A\nshort\n");
  }

  @Test
  @DisplayName("cuts before the first section that does not fit, with a marker")
  void cutsAtTheLastHeadingThatFits() {
    String content =
        "# P\n## One\n"
            + "a".repeat(100)
            + "\n## Two\n"
            + "b".repeat(60)
            + "\n## Three\n"
            + "c".repeat(200);

    SizeCaps.Capped capped = caps.apply(WorkspacePath.of("PROFILE.md"), content);

    assertThat(capped.truncated()).isTrue();
    assertThat(capped.content().length()).isLessThanOrEqualTo(300);
    assertThat(capped.content())
        .startsWith("# P\n## One\n" + "a".repeat(100) + "\n## Two\n" + "b".repeat(60) + "\n\n_[")
        .doesNotContain("## Three")
        .endsWith("cap; later sections were left out]_\n");
  }

  @Test
  @DisplayName("ignores ### headings and falls back to a line break without a fitting section")
  void fallsBackToALineBreak() {
    String content = "### not a cut point\n" + "x".repeat(100) + "\n" + "y".repeat(300);

    String cut = SizeCaps.cut(content, 300, "PROFILE.md");

    assertThat(cut).startsWith("### not a cut point\n" + "x".repeat(100) + "\n\n_[");
    assertThat(cut.length()).isLessThanOrEqualTo(300);
  }

  @Test
  @DisplayName("applies no cap to MEMORY.md at 0 and refuses files past the byte maximum")
  void zeroIsNoCapAndTheMaximumHolds() {
    assertThat(caps.apply(WorkspacePath.of("MEMORY.md"), "m".repeat(1500)).truncated()).isFalse();
    assertThatThrownBy(() -> caps.apply(WorkspacePath.of("notes.md"), "中".repeat(700)))
        .hasMessageContaining("2100 bytes");
    assertThat(caps.charCap(WorkspacePath.of("x/PROFILE.md"))).isZero();
  }
}
