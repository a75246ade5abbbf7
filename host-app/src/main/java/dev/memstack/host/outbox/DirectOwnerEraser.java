package dev.memstack.host.outbox;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The {@link OwnerEraser} used with the in-memory outbox ({@code memstack.outbox.type=memory}):
 * calls {@code forget} on every running provider that can forget, on the caller's thread. Caveats:
 * nothing is queued, so a provider that is not running or fails reports {@code error} and must be
 * erased again later, and turns of the owner still in the in-memory queues are delivered
 * afterwards. Use the journal outbox for erasures that always complete.
 */
public final class DirectOwnerEraser implements OwnerEraser {

  private final StackMembers members;
  private final ProviderCalls calls;

  public DirectOwnerEraser(StackMembers members, ProviderCalls calls) {
    this.members = Objects.requireNonNull(members, "members");
    this.calls = Objects.requireNonNull(calls, "calls");
  }

  @Override
  public OwnerErasure erase(OwnerKey owner) {
    Objects.requireNonNull(owner, "owner");
    List<ProviderErasure> outcomes = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (StackMember member : members.enabled()) {
      seen.add(member.id());
      outcomes.add(erase(member, owner));
    }
    for (String id : members.disabled()) {
      if (seen.add(id)) {
        outcomes.add(
            new ProviderErasure(
                id,
                ProviderErasure.ERROR,
                0,
                0,
                "provider "
                    + id
                    + " is not running and the in-memory outbox cannot queue the erasure;"
                    + " erase the owner again once it runs"));
      }
    }
    return new OwnerErasure(owner, outcomes);
  }

  private ProviderErasure erase(StackMember member, OwnerKey owner) {
    try {
      if (!member.claims(Capability.FORGET)) {
        return new ProviderErasure(
            member.id(),
            ProviderErasure.UNSUPPORTED,
            0,
            0,
            "provider " + member.id() + " cannot forget owners");
      }
      long removed =
          calls.call(member, ProviderCalls.FORGET, () -> member.provider().forget(owner));
      return new ProviderErasure(
          member.id(), ProviderErasure.ERASED, Math.max(0, removed), 0, null);
    } catch (RuntimeException e) {
      return new ProviderErasure(member.id(), ProviderErasure.ERROR, 0, 0, Failures.describe(e));
    }
  }
}
