package dev.memstack.tck;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.Scope;
import dev.memstack.spi.Turn;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** The kit passes on a correct provider, with every capability claimed, so no test is skipped. */
class ReferenceProviderCompatibilityTest extends MemoryProviderCompatibilityKit {

  @Override
  protected MemoryProvider createProvider(ProviderContext context) {
    return new InMemoryReferenceProvider(context);
  }

  @Override
  protected void writeShared(MemoryProvider provider, AgentId agent, Scope scope, String text) {
    ((InMemoryReferenceProvider) provider).writeShared(agent, scope, text);
  }

  @Override
  protected SharedRecords sharedRecords() {
    return referenceRecords();
  }

  @Override
  protected Turn turnTheProviderRejects(AgentId agent, OwnerKey owner) {
    return unstorable(this, agent, owner);
  }

  /** A turn the reference provider refuses; used by the flawed kits too. */
  static Turn unstorable(MemoryProviderCompatibilityKit kit, AgentId agent, OwnerKey owner) {
    return kit.turn(
        agent, owner, "a" + InMemoryReferenceProvider.UNSTORABLE + "b unstorable", "ok");
  }

  /** Shared facts of the reference provider and its delete tool; used by the flawed kits too. */
  static SharedRecords referenceRecords() {
    AtomicInteger made = new AtomicInteger();
    return new SharedRecords() {
      @Override
      public String create(MemoryProvider provider, AgentId agent, Scope scope) {
        return ((InMemoryReferenceProvider) provider)
            .writeShared(agent, scope, "Shared fact number " + made.incrementAndGet());
      }

      @Override
      public List<Attempt> attempts(Scope scope, String id) {
        return List.of(
            new Attempt(InMemoryReferenceProvider.DELETE_FACT, "{\"id\":\"" + id + "\"}"));
      }

      @Override
      public String state(MemoryProvider provider, AgentId agent, Scope scope, String id) {
        return ((InMemoryReferenceProvider) provider).describe(id);
      }
    };
  }
}
