package dev.memstack.host.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class McpToolNamesTest {

  @Test
  void aShortNameIsProviderAndToolJoinedByTwoUnderscores() {
    assertThat(McpToolNames.name("vector", "remember", Set.of())).isEqualTo("vector__remember");
  }

  @Test
  void aLongNameIsCutToSixtyFourCharactersEndingInAHashOfTheFullName() {
    String provider = "a-very-long-provider-instance-id-of-forty-chars";
    String first = McpToolNames.name(provider, "list_workspace_memory_files", Set.of());
    String second = McpToolNames.name(provider, "list_workspace_memory_files_too", Set.of());

    assertThat(first).hasSize(64).startsWith(provider + "__").matches(".*_[0-9a-f]{8}");
    assertThat(second).hasSize(64).isNotEqualTo(first);
    assertThat(McpToolNames.name(provider, "list_workspace_memory_files", Set.of()))
        .isEqualTo(first);
  }

  @Test
  void aNameAlreadyTakenGetsTheHashToo() {
    String taken = McpToolNames.name("a__b", "c", Set.of());
    String other = McpToolNames.name("a", "b__c", Set.of(taken));

    assertThat(taken).isEqualTo("a__b__c");
    assertThat(other).startsWith("a__b__c_").hasSize("a__b__c_".length() + 8);
  }
}
