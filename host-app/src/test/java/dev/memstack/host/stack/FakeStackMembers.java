package dev.memstack.host.stack;

import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.spi.MemoryProvider;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** A live, changeable stack of fake providers, each with its own class loader. */
final class FakeStackMembers implements StackMembers {

  private final List<StackMember> members = new CopyOnWriteArrayList<>();
  final List<String> disabledIds = new CopyOnWriteArrayList<>();

  StackMember add(MemoryProvider provider) {
    StackMember member =
        new StackMember(
            provider.id(),
            "fake",
            "fake-plugin",
            members.size(),
            provider,
            new URLClassLoader("plugin-" + provider.id(), new URL[0], getClass().getClassLoader()));
    members.add(member);
    return member;
  }

  /** Replaces the member with the same id by a new instance, as a plugin reload does. */
  StackMember replace(MemoryProvider provider) {
    StackMember old = find(provider.id()).orElseThrow();
    StackMember member =
        new StackMember(
            provider.id(),
            old.type(),
            old.pluginId(),
            old.order(),
            provider,
            new URLClassLoader("plugin-" + provider.id(), new URL[0], getClass().getClassLoader()));
    members.set(members.indexOf(old), member);
    return member;
  }

  void remove(String id) {
    members.removeIf(m -> m.id().equals(id));
  }

  @Override
  public List<StackMember> enabled() {
    List<StackMember> sorted = new ArrayList<>(members);
    sorted.sort(Comparator.comparingInt(StackMember::order).thenComparing(StackMember::id));
    return List.copyOf(sorted);
  }

  @Override
  public Optional<StackMember> find(String id) {
    return members.stream().filter(m -> m.id().equals(id)).findFirst();
  }

  @Override
  public List<String> disabled() {
    return List.copyOf(disabledIds);
  }
}
