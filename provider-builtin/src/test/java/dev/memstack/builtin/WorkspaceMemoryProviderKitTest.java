package dev.memstack.builtin;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.Turn;
import dev.memstack.tck.MemoryProviderCompatibilityKit;
import dev.memstack.tck.SharedRecords;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

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
  protected Turn turnTheProviderRejects(AgentId agent, OwnerKey owner) {
    return turn(agent, owner, "written before the text rule: a\u0000b", "ok");
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

  /**
   * Shared workspace files: a team or global file written with full rights; the write tools tried
   * on it are write, edit and update_workspace_file_meta; its state is what a read answers.
   */
  @Override
  protected SharedRecords sharedRecords() {
    AtomicInteger made = new AtomicInteger();
    return new SharedRecords() {
      @Override
      public String create(MemoryProvider provider, AgentId agent, Scope scope) {
        String path = "reference/guard-" + made.incrementAndGet() + ".md";
        provider.callTool(
            new ToolCall(
                agent,
                null,
                "write_workspace_memory_file",
                "{\"scope\":\""
                    + scopeName(scope)
                    + "\",\"filename\":\""
                    + path
                    + "\",\"content\":\"# Guard\\nThe lighthouse logbook is in the cellar.\\n\"}"));
        return path;
      }

      @Override
      public List<Attempt> attempts(Scope scope, String path) {
        String target = "{\"scope\":\"" + scopeName(scope) + "\",\"filename\":\"" + path + "\",";
        return List.of(
            new Attempt("write_workspace_memory_file", target + "\"content\":\"# Replaced\"}"),
            new Attempt(
                "edit_workspace_memory_file",
                target + "\"oldText\":\"cellar\",\"newText\":\"attic\"}"),
            new Attempt("update_workspace_file_meta", target + "\"enabled\":true}"));
      }

      @Override
      public String state(MemoryProvider provider, AgentId agent, Scope scope, String path) {
        return provider.callTool(
            new ToolCall(
                agent,
                null,
                "read_workspace_memory_file",
                "{\"scope\":\"" + scopeName(scope) + "\",\"filename\":\"" + path + "\"}"));
      }
    };
  }

  private static String scopeName(Scope scope) {
    return scope.name().toLowerCase(Locale.ROOT);
  }
}
