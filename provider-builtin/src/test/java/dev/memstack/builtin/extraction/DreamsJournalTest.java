package dev.memstack.builtin.extraction;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import org.junit.jupiter.api.Test;

/**
 * DREAMS.md keeps its cap by summarising its oldest entries, month by month, before it drops any.
 */
class DreamsJournalTest {

  private static String entry(LocalDate day, boolean changed) {
    return "## "
        + day
        + " 03:00 · team · scheduled\n- Read: MEMORY.md (800 chars); 2 daily notes\n"
        + "- Patterns: the team kept talking about the billing launch and its budget\n- Changed: "
        + (changed ? "MEMORY.md replaced (800 → 900 chars)" : "nothing (MEMORY.md kept as it was)");
  }

  @Test
  void oldEntriesAreCondensedThenSummarisedByMonthWithoutDroppingAny() {
    String journal = "";
    LocalDate day = LocalDate.parse("2026-01-01");
    for (int i = 0; i < 120; i++) {
      journal = DreamsJournal.append(journal, entry(day.plusDays(i), i % 3 == 0), 4000);
      assertThat(journal.length()).isLessThanOrEqualTo(4000);
    }
    assertThat(journal).contains("## 2026-04-30 03:00"); // the newest entry is whole
    assertThat(journal).contains("- 2026-01 (31 entries): 11 changed memory");
    assertThat(journal).doesNotContain("older entries dropped");
    assertThat(DreamsJournal.newest(journal)).startsWith("## 2026-04-30");
  }

  @Test
  void monthlyLinesAreDroppedAndCountedOnlyWhenEvenTheyDoNotFit() {
    String journal = "";
    LocalDate day = LocalDate.parse("2020-01-01");
    for (int i = 0; i < 2000; i += 7) {
      journal = DreamsJournal.append(journal, entry(day.plusDays(i), true), 2000);
    }
    assertThat(journal.length()).isLessThanOrEqualTo(2000);
    assertThat(journal).contains("older entries dropped");
    assertThat(journal).containsPattern("- 20\\d\\d-\\d\\d \\(\\d+ entries\\)");
  }
}
