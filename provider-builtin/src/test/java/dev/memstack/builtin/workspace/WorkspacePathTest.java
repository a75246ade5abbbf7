package dev.memstack.builtin.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WorkspacePathTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "MEMORY.md",
        "memory/2026-04-01.md",
        "notes/项目/计划.md",
        "a b.md",
        "DREAMS.md",
        "deep/er/still/ok/fine/x.md"
      })
  @DisplayName("accepts relative Markdown names")
  void acceptsRelativeMarkdownNames(String name) {
    assertThat(WorkspacePath.of(name).value()).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "../x.md",
        "/etc/x.md",
        "x.txt",
        "a/%2e%2e/b.md",
        "a/%2E%2e/b.md",
        "%2fetc.md",
        "a\\b.md",
        "x\u0000.md",
        "x\n.md",
        "x\u2028.md",
        "a/../b.md",
        "./a.md",
        ".hidden.md",
        "dir/.hidden/x.md",
        "a//b.md",
        "a/",
        "C:/x.md",
        "x?.md",
        "x|y.md",
        " lead.md",
        "trail /x.md",
        "x.MD",
        "x.md.txt",
        "a/b/c/d/e/f/g.md",
        ""
      })
  @DisplayName("refuses names that could leave the workspace or are not Markdown")
  void refusesUnsafeNames(String name) {
    assertThatThrownBy(() -> WorkspacePath.of(name))
        .isInstanceOf(InvalidWorkspacePathException.class)
        .hasMessageStartingWith("filename ");
  }

  @Test
  @DisplayName("refuses names longer than 200 characters")
  void refusesLongNames() {
    assertThatThrownBy(() -> WorkspacePath.of("x".repeat(198) + ".md"))
        .hasMessageContaining("longer than 200");
    assertThatThrownBy(() -> WorkspacePath.of(null)).hasMessage("filename is required");
  }

  @Test
  @DisplayName("knows daily notes by name and real date")
  void knowsDailyNotes() {
    assertThat(WorkspacePath.of("memory/2026-04-01.md").dailyNoteDate())
        .isEqualTo(LocalDate.of(2026, 4, 1));
    assertThat(WorkspacePath.of("memory/2026-02-30.md").isDailyNote()).isFalse();
    assertThat(WorkspacePath.of("memory/notes.md").isDailyNote()).isFalse();
    assertThat(WorkspacePath.of("x/memory/2026-04-01.md").isDailyNote()).isFalse();
    assertThat(WorkspacePath.dailyNote(LocalDate.of(2026, 1, 9)).value())
        .isEqualTo("memory/2026-01-09.md");
  }
}
