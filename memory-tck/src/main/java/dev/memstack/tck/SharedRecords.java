package dev.memstack.tck;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.Scope;
import java.util.List;
import java.util.Objects;

/**
 * What the kit's write-guard tests need from a provider with write tools: how to make a shared
 * (TEAM or GLOBAL) record, which write tool calls to try on it, and how to tell whether it changed.
 * The kit cannot know what arbitrary tools do, so the provider's test supplies this through {@link
 * MemoryProviderCompatibilityKit#sharedRecords()}; the kit then calls each attempt as a caller
 * limited to personal memory (and as a read-only caller) and asserts {@code FORBIDDEN} with the
 * record unchanged, and as a caller who may write every scope and asserts the record did change (so
 * the attempts are real writes).
 *
 * <pre>{@code
 * protected SharedRecords sharedRecords() {
 *   return new SharedRecords() {
 *     public String create(MemoryProvider p, AgentId agent, Scope scope) {
 *       return idOf(p.callTool(new ToolCall(agent, null, "remember", "{\"scope\":\"team\",...}")));
 *     }
 *     public List<Attempt> attempts(Scope scope, String id) {
 *       return List.of(new Attempt("delete_memory", "{\"id\":\"" + id + "\"}"));
 *     }
 *     public String state(MemoryProvider p, AgentId agent, Scope scope, String id) {
 *       return p.callTool(new ToolCall(agent, null, "list_memories", "{\"status\":\"any\"}"));
 *     }
 *   };
 * }
 * }</pre>
 */
public interface SharedRecords {

  /**
   * One write tool call to try on a record.
   *
   * @param tool the tool name, never {@code null}
   * @param arguments the JSON object of arguments, never {@code null}
   */
  record Attempt(String tool, String arguments) {
    public Attempt {
      Objects.requireNonNull(tool, "tool");
      Objects.requireNonNull(arguments, "arguments");
    }
  }

  /**
   * Makes a new record of {@code scope} for {@code agent} (with full rights; each call a distinct
   * record, e.g. with a counter in its text) and returns what the write tools take to name it: an
   * id, or a path. Throw {@link org.opentest4j.TestAbortedException} for a scope the provider does
   * not have.
   *
   * @param scope {@link Scope#TEAM} or {@link Scope#GLOBAL}
   */
  String create(MemoryProvider provider, AgentId agent, Scope scope);

  /**
   * The write tool calls to try on the record {@code id} of {@code scope}, each of which changes it
   * for a caller that may. The kit makes each one, in order, against a freshly made record.
   */
  List<Attempt> attempts(Scope scope, String id);

  /**
   * The record as it is now, in any form that differs when the record differs (its text, status and
   * metadata, or a read tool's answer about it; "absent" when it is gone).
   */
  String state(MemoryProvider provider, AgentId agent, Scope scope, String id);
}
