package dev.memstack.builtin.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What an entry is, and that parsing and writing back keep everything that is not an entry. */
class StructuredEntriesTest {

  private static final String FILE =
      """
      # MEMORY.md
      Intro text.

      - before any section
      ## Projects
      - one
        continued
        - nested
      * two (2026-03-01)

      Some prose.
      ## Empty

      ## Decisions
      - three
      """;

  @Test
  void anEntryIsATopLevelBulletWithItsIndentedLinesUnderItsSection() {
    StructuredEntries.Document document = StructuredEntries.parse(FILE);

    assertThat(document.entries())
        .extracting(StructuredEntries.Entry::section, StructuredEntries.Entry::body)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("", "before any section"),
            org.assertj.core.groups.Tuple.tuple("Projects", "one\ncontinued\n- nested"),
            org.assertj.core.groups.Tuple.tuple("Projects", "two (2026-03-01)"),
            org.assertj.core.groups.Tuple.tuple("Decisions", "three"));
    assertThat(document.entries().get(2).date()).hasToString("2026-03-01");
    assertThat(document.entries().get(1).date()).isNull();
    assertThat(document.sections()).containsExactly("", "Projects", "Decisions");
  }

  @Test
  void keepingEveryEntryGivesTheFileBackByteForByte() {
    StructuredEntries.Document document = StructuredEntries.parse(FILE);
    assertThat(document.keep(Set.of(0, 1, 2, 3))).isEqualTo(FILE);
    assertThat(StructuredEntries.parse("no newline").keep(Set.of())).isEqualTo("no newline");
    assertThat(StructuredEntries.parse("").entries()).isEmpty();
  }

  @Test
  void replacingPutsASectionsNewEntriesWhereItsFirstEntryWas() {
    String replaced =
        StructuredEntries.parse(FILE)
            .replaceEntries(
                Map.of("", List.of("before"), "Projects", List.of("one and two\nover lines")));

    assertThat(replaced)
        .isEqualTo(
            """
            # MEMORY.md
            Intro text.

            - before
            ## Projects
            - one and two
              over lines

            Some prose.
            ## Empty

            ## Decisions
            """);
  }
}
