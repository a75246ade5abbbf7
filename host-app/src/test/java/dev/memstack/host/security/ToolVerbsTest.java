package dev.memstack.host.security;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ToolVerbsTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "list_workspace_memory_files",
        "read_workspace_memory_file",
        "search_workspace_memory",
        "export_workspace_memory",
        "recall",
        "list_memories",
        "mem0_search",
        "search_echo"
      })
  void theShippedProvidersReadToolsAreReads(String tool) {
    assertThat(ToolVerbs.isRead(tool)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "write_workspace_memory_file",
        "edit_workspace_memory_file",
        "update_workspace_file_meta",
        "import_workspace_memory",
        "remember",
        "update_memory_status",
        "delete_memory",
        "mem0_add",
        "echo",
        "read_and_delete",
        "searchandreplace"
      })
  void writesAndUnknownVerbsAreWrites(String tool) {
    assertThat(ToolVerbs.isRead(tool)).isFalse();
  }
}
