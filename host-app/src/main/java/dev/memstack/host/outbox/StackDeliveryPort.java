package dev.memstack.host.outbox;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.outbox.DeliveryPort;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The outbox's way to the providers: the stack's members, each call made through {@link
 * ProviderCalls} (the plugin's class loader, the call metrics) like every other provider call.
 */
public final class StackDeliveryPort implements DeliveryPort {

  private final StackMembers members;
  private final ProviderCalls calls;

  public StackDeliveryPort(StackMembers members, ProviderCalls calls) {
    this.members = Objects.requireNonNull(members, "members");
    this.calls = Objects.requireNonNull(calls, "calls");
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
