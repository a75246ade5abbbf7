package dev.memstack.vector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.tck.MemoryProviderCompatibilityKit;
import dev.memstack.tck.SharedRecords;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;

/** The compatibility kit on the vector provider with its default, embedded store. */
@DisplayName("Compatibility kit: vector provider, embedded store")
class EmbeddedVectorProviderCompatibilityTest extends MemoryProviderCompatibilityKit {

  @Override
  protected MemoryProvider createProvider(ProviderContext context) {
    return new VectorMemoryProviderFactory().create(context);
  }

  @Override
  protected ProviderConfig config() {
    return ProviderConfig.of(
        "memstack.providers." + instanceId() + ".config", Map.of("store", "embedded"));
  }

  /** Batches of turns become searchable within a second; the kit checks them at once. */
  @Override
  protected void awaitIndexed(MemoryProvider provider) {
    ((VectorMemoryProvider) provider).parts().store().refresh();
  }

  @Override
  protected void writeShared(MemoryProvider provider, AgentId agent, Scope scope, String text) {
    writeSharedWithRemember(provider, agent, scope, text);
  }

  /**
   * Writes TEAM or GLOBAL memory through the {@code remember} tool; shared by every store's kit.
   */
  static void writeSharedWithRemember(
      MemoryProvider provider, AgentId agent, Scope scope, String text) {
    String arguments =
        "{\"scope\":\""
            + scope.name().toLowerCase(Locale.ROOT)
            + "\",\"type\":\"FACT\",\"text\":\""
            + text.replace("\\", "\\\\").replace("\"", "\\\"")
            + "\"}";
    provider.callTool(new ToolCall(agent, null, "remember", arguments));
  }

  @Override
  protected SharedRecords sharedRecords() {
    return VectorSharedRecords.create();
  }
}
