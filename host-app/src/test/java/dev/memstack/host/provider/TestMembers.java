package dev.memstack.host.provider;

import dev.memstack.host.testing.SilentProvider;
import dev.memstack.spi.MemoryProvider;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** A changeable stack of do-nothing providers for the tests of this package. */
final class TestMembers implements StackMembers {

  private final List<StackMember> members = new CopyOnWriteArrayList<>();

  /** Adds a provider that answers nothing, under a class loader of its own. */
  StackMember add(String id) {
    MemoryProvider provider = new SilentProvider(id);
    StackMember member =
        new StackMember(
            id,
            "test",
            "test-plugin",
            members.size(),
            provider,
            new URLClassLoader("plugin-" + id, new URL[0], getClass().getClassLoader()));
    members.add(member);
    return member;
  }

  @Override
  public List<StackMember> enabled() {
    return List.copyOf(members);
  }

  @Override
  public Optional<StackMember> find(String id) {
    return members.stream().filter(m -> m.id().equals(id)).findFirst();
  }
}
