package dev.memstack.host.api;

import dev.memstack.host.provider.StackMember;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ToolSpec;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The REST routes built on one {@link Capability}: which provider serves them ({@link
 * CapabilityTools#require}) and the calls of its standard tools, through {@link ToolInvoker}, so
 * that the right to call is the tool's declared effect's. Thread-safe.
 *
 * @param providers finds the provider and its tools
 * @param capability the capability the routes need
 * @param preferred the instance a setting names, or {@code null} for the first that claims it
 * @param setting the setting that names the instance, for messages
 * @param missing makes the exception for a missing provider, or for a tool it does not list
 */
public record CapabilityRoute(
    CapabilityTools providers,
    Capability capability,
    String preferred,
    String setting,
    Function<String, RuntimeException> missing) {

  /** The running member that serves the capability; the exception {@code missing} makes if none. */
  public StackMember member() {
    return providers.require(capability, preferred, setting, missing);
  }

  /** The exception for a member that claims the capability but lists no tool {@code name}. */
  public RuntimeException noTool(StackMember member, String name) {
    return missing.apply(
        "provider '" + member.id() + "' claims " + capability + " but has no tool '" + name + "'");
  }

  /** Calls the standard tool {@code name} of {@link #member()}, which must list it. */
  public JsonNode call(AgentId agent, OwnerKey owner, String name, ObjectNode arguments) {
    StackMember member = member();
    ToolSpec spec = providers.tool(member, name).orElseThrow(() -> noTool(member, name));
    return call(member, spec, agent, owner, arguments);
  }

  /** Calls {@code spec} of {@code member} ({@link ToolInvoker#call}). */
  public JsonNode call(
      StackMember member, ToolSpec spec, AgentId agent, OwnerKey owner, ObjectNode arguments) {
    return providers.call(member, spec, agent, owner, arguments);
  }
}
