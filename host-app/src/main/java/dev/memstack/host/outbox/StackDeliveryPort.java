package dev.memstack.host.outbox;

import dev.memstack.host.plugin.PluginHostProperties;
import dev.memstack.host.plugin.ProviderStartupException;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.outbox.DeliveryPort;
import dev.memstack.outbox.ProviderPolicy;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The outbox's way to the providers: the stack's members, each call made through {@link
 * ProviderCalls} (the plugin's class loader, the call metrics) like every other provider call, and
 * the backlog policy of every configured instance, running or not.
 */
public final class StackDeliveryPort implements DeliveryPort {

  private final StackMembers members;
  private final ProviderCalls calls;
  private final Map<String, ProviderPolicy> policies;

  /** A port whose providers are all required. */
  public StackDeliveryPort(StackMembers members, ProviderCalls calls) {
    this(members, calls, Map.of());
  }

  /**
   * @param policies the backlog policy of each configured provider instance, running or not (see
   *     {@link #policies}); an id left out is required
   */
  public StackDeliveryPort(
      StackMembers members, ProviderCalls calls, Map<String, ProviderPolicy> policies) {
    this.members = Objects.requireNonNull(members, "members");
    this.calls = Objects.requireNonNull(calls, "calls");
    this.policies = Map.copyOf(policies);
  }

  /**
   * The backlog policy of every configured instance ({@code memstack.providers.<id>.optional} and
   * {@code .max-backlog}).
   *
   * @throws ProviderStartupException naming {@code memstack.providers.<id>.max-backlog} when it is
   *     below 1
   */
  public static Map<String, ProviderPolicy> policies(
      Map<String, PluginHostProperties.Instance> providers) {
    Map<String, ProviderPolicy> policies = new TreeMap<>();
    providers.forEach(
        (id, instance) -> {
          if (instance.maxBacklog() < 1) {
            throw new ProviderStartupException(
                "memstack.providers." + id + ".max-backlog",
                "must be at least 1 (turns kept for an optional provider), got: "
                    + instance.maxBacklog());
          }
          policies.put(
              id,
              instance.optional()
                  ? ProviderPolicy.optional(instance.maxBacklog())
                  : ProviderPolicy.REQUIRED);
        });
    return policies;
  }

  @Override
  public ProviderPolicy policy(String providerId) {
    return policies.getOrDefault(providerId, ProviderPolicy.REQUIRED);
  }

  @Override
  public List<Recipient> enabled() {
    return members.enabled().stream().map(this::recipient).toList();
  }

  @Override
  public List<String> disabled() {
    return members.disabled();
  }

  @Override
  public Optional<Recipient> find(String providerId) {
    return members.find(providerId).map(this::recipient);
  }

  private Recipient recipient(StackMember member) {
    return new Recipient() {
      @Override
      public String id() {
        return member.id();
      }

      @Override
      public boolean claims(Capability capability) {
        return member.claims(capability);
      }

      @Override
      public void syncTurns(List<Turn> turns) {
        calls.run(member, ProviderCalls.SYNC_TURNS, () -> member.provider().syncTurns(turns));
      }

      @Override
      public void syncTurn(Turn turn) {
        calls.run(member, ProviderCalls.SYNC_TURN, () -> member.provider().syncTurn(turn));
      }

      @Override
      public long forget(OwnerKey owner) {
        return calls.call(member, ProviderCalls.FORGET, () -> member.provider().forget(owner));
      }
    };
  }
}
