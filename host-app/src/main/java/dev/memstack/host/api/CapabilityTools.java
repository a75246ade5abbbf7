package dev.memstack.host.api;

import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Finds the provider behind a REST route that is built on a {@link Capability} (the workspace
 * files, the memory jobs) and its standard tools ({@link StandardTools}), so that the host knows
 * the SPI's contract and no plugin's vocabulary: the provider is the running member that claims the
 * capability, either the instance a setting names or, with none named, the first in stack order.
 * Thread-safe.
 *
 * @param members the running members of the stack
 * @param tools the host's tool service, which lists and calls the tools
 */
public record CapabilityTools(StackMembers members, ToolInvoker tools) {

  /**
   * The running member that serves {@code capability}: the instance {@code preferred} when it is
   * not {@code null} (and only if it claims the capability), else the first member in stack order
   * that claims it. A member whose {@code capabilities()} throws claims nothing.
   */
  public Optional<StackMember> provider(Capability capability, String preferred) {
    if (preferred != null) {
      return members.find(preferred).filter(member -> claims(member, capability));
    }
    return members.enabled().stream().filter(member -> claims(member, capability)).findFirst();
  }

  /** Every running member that claims {@code capability}, in stack order. */
  public List<StackMember> providers(Capability capability) {
    return members.enabled().stream().filter(member -> claims(member, capability)).toList();
  }

  /**
   * The running member that serves {@code capability}, else the exception {@code missing} makes of
   * a message naming the capability (and the instance a setting named).
   *
   * @param setting the setting that names the instance, for the message
   */
  public StackMember require(
      Capability capability,
      String preferred,
      String setting,
      Function<String, RuntimeException> missing) {
    return provider(capability, preferred)
        .orElseThrow(
            () ->
                missing.apply(
                    preferred == null
                        ? "no running provider claims the capability " + capability
                        : "the provider '"
                            + preferred
                            + "' ("
                            + setting
                            + ") is not running or does not claim the capability "
                            + capability));
  }

  /** The member's standard tool {@code name}, if it lists one. */
  public Optional<ToolSpec> tool(StackMember member, String name) {
    return tools.find(member, name);
  }

  /**
   * Calls the standard tool {@code name} of the running member that serves {@code capability} (the
   * instance {@code preferred}, or the first that claims it): a {@link NotFoundException} naming
   * the capability when none does, or naming the tool when the member does not list it.
   */
  public JsonNode callStandard(
      Capability capability,
      String preferred,
      String name,
      AgentId agent,
      OwnerKey owner,
      ObjectNode arguments) {
    String instance = preferred == null || preferred.isBlank() ? null : preferred;
    StackMember member = require(capability, instance, "provider", NotFoundException::new);
    ToolSpec spec = tool(member, name).orElseThrow(() -> missingTool(member, capability, name));
    return tools.call(member, spec, agent, owner, arguments);
  }

  /** A running member and its standard tool. */
  public record Served(StackMember member, ToolSpec spec) {}

  /**
   * Every running member that claims {@code capability}, with its standard tool {@code name}, in
   * stack order (a member that only happens to list a tool of that name is not one of them).
   *
   * @throws NotFoundException naming the capability when no member claims it, or the tool when a
   *     member claims the capability without listing it
   */
  public List<Served> claiming(Capability capability, String name) {
    List<Served> served = new ArrayList<>();
    for (StackMember member : providers(capability)) {
      ToolSpec spec = tool(member, name).orElseThrow(() -> missingTool(member, capability, name));
      served.add(new Served(member, spec));
    }
    if (served.isEmpty()) {
      throw new NotFoundException("no running provider claims the capability " + capability);
    }
    return served;
  }

  /**
   * The running members that serve the standard tool {@code name}, which a provider may serve
   * without claiming {@code capability} ({@link StandardTools#RUN_STRUCTURED_CONSOLIDATION}): in
   * stack order, each member that claims the capability (it must list the tool) or lists the tool;
   * with {@code preferred} (not {@code null} or blank), that member alone. A member that claims
   * nothing and cannot list its tools is left out.
   *
   * @throws NotFoundException naming the capability and the tool when none serves it, or the tool
   *     when a member claims the capability without listing it
   */
  public List<Served> serving(Capability capability, String preferred, String name) {
    List<StackMember> candidates =
        preferred == null || preferred.isBlank()
            ? members.enabled()
            : members.find(preferred).map(List::of).orElse(List.of());
    List<Served> served = new ArrayList<>();
    for (StackMember member : candidates) {
      boolean claims = claims(member, capability);
      Optional<ToolSpec> spec;
      try {
        spec = tool(member, name);
      } catch (RuntimeException e) {
        if (claims) {
          throw e;
        }
        continue;
      }
      if (spec.isPresent()) {
        served.add(new Served(member, spec.get()));
      } else if (claims) {
        throw missingTool(member, capability, name);
      }
    }
    if (served.isEmpty()) {
      throw new NotFoundException(
          preferred == null || preferred.isBlank()
              ? "no running provider claims the capability "
                  + capability
                  + " or serves the tool '"
                  + name
                  + "'"
              : "the provider '"
                  + preferred
                  + "' is not running, or it neither claims the capability "
                  + capability
                  + " nor serves the tool '"
                  + name
                  + "'");
    }
    return served;
  }

  /** Calls {@code served}'s tool for {@code owner} ({@link ToolInvoker#call}). */
  public JsonNode call(Served served, AgentId agent, OwnerKey owner, ObjectNode arguments) {
    return tools.call(served.member(), served.spec(), agent, owner, arguments);
  }

  /** Calls {@code spec} of {@code member} for {@code owner} ({@link ToolInvoker#call}). */
  JsonNode call(
      StackMember member, ToolSpec spec, AgentId agent, OwnerKey owner, ObjectNode arguments) {
    return tools.call(member, spec, agent, owner, arguments);
  }

  /**
   * The routes built on {@code capability}, served by the instance {@code preferred} ({@code null}
   * for the first that claims it).
   *
   * @param setting the setting that names the instance, for messages
   * @param missing makes the exception for a missing provider or tool
   */
  public CapabilityRoute route(
      Capability capability,
      String preferred,
      String setting,
      Function<String, RuntimeException> missing) {
    return new CapabilityRoute(this, capability, preferred, setting, missing);
  }

  private static NotFoundException missingTool(
      StackMember member, Capability capability, String name) {
    return new NotFoundException(
        "provider '" + member.id() + "' claims " + capability + " but has no tool '" + name + "'");
  }

  private static boolean claims(StackMember member, Capability capability) {
    try {
      return member.claims(capability);
    } catch (RuntimeException e) {
      return false;
    }
  }
}
