package dev.memstack.host.provider;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Turn;
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
    MemoryProvider provider =
        new MemoryProvider() {
          @Override
          public String id() {
            return id;
          }

          @Override
          public String systemPromptBlock(AgentId agent) {
            return "";
          }

          @Override
          public Recall prefetch(RecallRequest request) {
            return Recall.empty();
          }

          @Override
          public void syncTurn(Turn turn) {}
        };
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
