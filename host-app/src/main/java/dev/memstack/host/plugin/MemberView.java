package dev.memstack.host.plugin;

import dev.memstack.host.plugin.ProviderInstances.Configured;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.stack.SystemPromptCache;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running provider instances as the stack sees them: an immutable list in stack order, replaced
 * as a whole when instances come or go (each change also empties the system-prompt cache), so that
 * reading never blocks. Changes are made one at a time by the {@link ProviderRegistry}; after each
 * one the registered listeners run.
 */
final class MemberView {

  private static final Logger log = LoggerFactory.getLogger(MemberView.class);

  private static final Comparator<StackMember> STACK_ORDER =
      Comparator.comparingInt(StackMember::order).thenComparing(StackMember::id);

  private final SystemPromptCache systemPromptCache;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile List<StackMember> members = List.of();

  MemberView(SystemPromptCache systemPromptCache) {
    this.systemPromptCache = systemPromptCache;
  }

  /** The running members in stack order. */
  List<StackMember> enabled() {
    return members;
  }

  Optional<StackMember> find(String id) {
    for (StackMember member : members) {
      if (member.id().equals(id)) {
        return Optional.of(member);
      }
    }
    return Optional.empty();
  }

  /** Makes {@code next} the members, sorted into stack order. */
  void publish(List<StackMember> next) {
    List<StackMember> sorted = new ArrayList<>(next);
    sorted.sort(STACK_ORDER);
    members = List.copyOf(sorted);
    systemPromptCache.invalidate(null);
    for (Runnable listener : listeners) {
      try {
        listener.run();
      } catch (RuntimeException e) {
        log.warn("A listener of the provider members failed: {}", e.toString(), e);
      }
    }
  }

  /** Runs {@code listener} after each change. */
  void onChange(Runnable listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Adds {@code created} to the members. */
  void add(List<StackMember> created) {
    List<StackMember> next = new ArrayList<>(members);
    next.addAll(created);
    publish(next);
  }

  /** Takes the plugin's members out of the view and returns them. */
  List<StackMember> takeOut(String pluginId) {
    List<StackMember> leaving =
        members.stream().filter(m -> m.pluginId().equals(pluginId)).toList();
    if (!leaving.isEmpty()) {
      publish(members.stream().filter(m -> !m.pluginId().equals(pluginId)).toList());
    }
    return leaving;
  }

  /** Takes every member out of the view and returns them. */
  List<StackMember> takeOutAll() {
    List<StackMember> leaving = members;
    publish(List.of());
    return leaving;
  }

  /** Ids of the configured instances that are not running. */
  List<String> disabled(List<Configured> configured) {
    List<StackMember> running = members;
    List<String> result = new ArrayList<>();
    for (Configured instance : configured) {
      if (running.stream().noneMatch(m -> m.id().equals(instance.id()))) {
        result.add(instance.id());
      }
    }
    return result;
  }

  /**
   * Every configured instance, in stack order, with its state.
   *
   * @param typesByPlugin the provider types of each started plugin
   */
  List<ProviderInstanceInfo> instances(
      List<Configured> configured, Map<String, List<String>> typesByPlugin) {
    List<StackMember> running = members;
    List<ProviderInstanceInfo> result = new ArrayList<>();
    for (Configured instance : configured) {
      Optional<StackMember> member =
          running.stream().filter(m -> m.id().equals(instance.id())).findFirst();
      String pluginId =
          member
              .map(StackMember::pluginId)
              .orElseGet(
                  () ->
                      typesByPlugin.entrySet().stream()
                          .filter(e -> e.getValue().contains(instance.type()))
                          .map(Map.Entry::getKey)
                          .findFirst()
                          .orElse(null));
      String state =
          member.isPresent()
              ? ProviderInstanceInfo.RUNNING
              : instance.enabled() ? ProviderInstanceInfo.STOPPED : ProviderInstanceInfo.DISABLED;
      result.add(
          new ProviderInstanceInfo(
              instance.id(),
              instance.type(),
              pluginId,
              instance.order(),
              instance.enabled(),
              state));
    }
    return result;
  }
}
