package dev.memstack.builtin.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The injection budget keeps the newest entries per type and under the character limit. */
class EntryBudgetTest {

  @Test
  void datedEntriesAreKeptNewestFirstAndUndatedOnesLastInFileFirst() {
    String memory =
        "# MEMORY.md\n\n## Log\n- a 2026-01-01\n- b 2026-03-01\n  more\n- c 2026-02-01\n- d\n";
    String profile = "## Basics\n- p1\n- p2\n- p3\n";

    EntryBudget.Output output =
        EntryBudget.apply(
            List.of(
                new EntryBudget.Input("MEMORY.md", memory),
                new EntryBudget.Input("PROFILE.md", profile)),
            2,
            0);

    // d carries c's date and comes after it: b (03-01) and d (02-01, later) are the newest two
    assertThat(output.contents().get(0))
        .isEqualTo("# MEMORY.md\n\n## Log\n- b 2026-03-01\n  more\n- d\n");
    assertThat(output.contents().get(1)).isEqualTo("## Basics\n- p2\n- p3\n");
    assertThat(output.omitted()).isEqualTo(3);
    assertThat(output.total()).isEqualTo(7);
    assertThat(output.cut()).containsExactly(true, true);
  }

  @Test
  void theCharacterLimitStopsAtTheFirstEntryThatDoesNotFit() {
    EntryBudget.Output output =
        EntryBudget.apply(
            List.of(new EntryBudget.Input("MEMORY.md", "- aaaa\n- bbbb\n- cccc\n")), 0, 14);

    assertThat(output.contents().get(0)).isEqualTo("- bbbb\n- cccc\n");
    assertThat(output.omitted()).isEqualTo(1);
  }

  @Test
  void withinTheBudgetNothingChanges() {
    String memory = "## A\n- x\n";
    EntryBudget.Output output =
        EntryBudget.apply(List.of(new EntryBudget.Input("MEMORY.md", memory)), 40, 4000);
    assertThat(output.contents().get(0)).isSameAs(memory);
    assertThat(output.omitted()).isZero();
  }
}
