package dev.memstack.spi;

import java.util.Objects;

/**
 * One call of a provider tool.
 *
 * @param agent the agent calling, never {@code null}
 * @param owner the owner the call is made for, or {@code null} for shared memory only; the host has
 *     already checked that the caller may act for this owner
 * @param name the tool name, never {@code null}
 * @param arguments the arguments as a JSON object text, never {@code null}
 */
public record ToolCall(AgentId agent, OwnerKey owner, String name, String arguments) {

  public ToolCall {
    Objects.requireNonNull(agent, "agent");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(arguments, "arguments");
  }
}
