package dev.memstack.host.outbox;

import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.spi.MemoryProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/** A changeable stack: providers run, stop (configured but not running) and come back. */
final class TestMembers implements StackMembers {

  private final Map<String, StackMember> running = new ConcurrentSkipListMap<>();
  private final Map<String, Boolean> stopped = new ConcurrentSkipListMap<>();

  TestMembers run(MemoryProvider provider) {
    stopped.remove(provider.id());
    running.put(
        provider.id(),
        new StackMember(
            provider.id(),
            "recording",
            "test-plugin",
            running.size(),
            provider,
            getClass().getClassLoader()));
    return this;
  }

  /** The provider stays configured but stops running (its plugin stopped or it is disabled). */
  TestMembers stop(String id) {
    running.remove(id);
    stopped.put(id, true);
    return this;
  }

  @Override
  public List<StackMember> enabled() {
    return List.copyOf(running.values());
  }

  @Override
  public Optional<StackMember> find(String id) {
    return Optional.ofNullable(running.get(id));
  }

  @Override
  public List<String> disabled() {
    return new ArrayList<>(stopped.keySet());
  }
}
