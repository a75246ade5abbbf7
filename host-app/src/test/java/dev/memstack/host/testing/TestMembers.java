package dev.memstack.host.testing;

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

/**
 * A live, changeable stack of test providers for the tests below the REST API (the call path, the
 * outbox, the stack), each member under a class loader of its own: providers are added (or run),
 * replaced by a new instance as a plugin reload does, stopped (configured but not running: {@link
 * #disabled()}) and removed. The members are in stack order: the order they were added in.
 */
public class TestMembers implements StackMembers {

  private final List<StackMember> members = new CopyOnWriteArrayList<>();

  /** The ids of providers that are configured but do not run, as {@link #disabled()} reports. */
  public final List<String> disabledIds = new CopyOnWriteArrayList<>();

  /** Adds a provider that answers nothing ({@link SilentProvider}) as the last member. */
  public StackMember add(String id) {
    return add(new SilentProvider(id));
  }

  /** Adds {@code provider} as the last member. */
  public StackMember add(MemoryProvider provider) {
    StackMember member = member(provider, "test", "test-plugin", members.size());
    members.add(member);
    return member;
  }

  /** Replaces the member with the same id by a new instance, as a plugin reload does. */
  public StackMember replace(MemoryProvider provider) {
    StackMember old = find(provider.id()).orElseThrow();
    StackMember member = member(provider, old.type(), old.pluginId(), old.order());
    members.set(members.indexOf(old), member);
    return member;
  }

  /** Runs {@code provider}: in place of a running one with its id, else as the last member. */
  public TestMembers run(MemoryProvider provider) {
    disabledIds.remove(provider.id());
    if (find(provider.id()).isPresent()) {
      replace(provider);
    } else {
      add(provider);
    }
    return this;
  }

  /** The provider stays configured but stops running (its plugin stopped or it is disabled). */
  public TestMembers stop(String id) {
    remove(id);
    if (!disabledIds.contains(id)) {
      disabledIds.add(id);
    }
    return this;
  }

  /** Takes the member with this id out of the stack (no longer running, not disabled either). */
  public void remove(String id) {
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

  /** The embedder {@link #queryEmbedder()} reports; none by default. */
  public volatile dev.memstack.spi.Embedder embedder;

  @Override
  public Optional<dev.memstack.spi.Embedder> queryEmbedder() {
    return Optional.ofNullable(embedder);
  }

  private StackMember member(MemoryProvider provider, String type, String pluginId, int order) {
    return new StackMember(
        provider.id(),
        type,
        pluginId,
        order,
        provider,
        new URLClassLoader("plugin-" + provider.id(), new URL[0], getClass().getClassLoader()));
  }
}
