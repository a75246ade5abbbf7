package dev.memstack.builtin;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.tck.MemoryProviderCompatibilityKit;

/**
 * The compatibility kit against the builtin provider on its defaults. Shared memory is written
 * through the provider's own tools: TEAM facts are appended to the team's MEMORY.md (which is in
 * the system prompt), GLOBAL facts go to a global file that is then enabled.
 */
class WorkspaceMemoryProviderKitTest extends MemoryProviderCompatibilityKit {

  @Override
  protected MemoryProvider createProvider(ProviderContext context) {
    return new BuiltinMemoryProviderFactory().create(context);
  }

  @Override
  protected void writeShared(MemoryProvider provider, AgentId agent, Scope scope, String text) {
    String quoted = "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    if (scope == Scope.TEAM) {
      provider.callTool(
          new ToolCall(
              agent,
              null,
              "edit_workspace_memory_file",
              "{\"scope\":\"team\",\"filename\":\"MEMORY.md\",\"oldText\":\"## Decisions\","
                  + "\"newText\":"
                  + quoted.replace(quoted, "\"- " + quoted.substring(1, quoted.length() - 1))
                  + "\\n\\n## Decisions\"}"));
    } else {
      provider.callTool(
          new ToolCall(
              agent,
              null,
              "write_workspace_memory_file",
              "{\"scope\":\"global\",\"filename\":\"reference/facts.md\",\"content\":"
                  + quoted
                  + "}"));
      provider.callTool(
          new ToolCall(
              agent,
              null,
              "update_workspace_file_meta",
              "{\"scope\":\"global\",\"filename\":\"reference/facts.md\",\"enabled\":true}"));
    }
  }
}
