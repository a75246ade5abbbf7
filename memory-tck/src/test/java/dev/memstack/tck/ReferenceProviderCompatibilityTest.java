package dev.memstack.tck;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.Scope;

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
}
