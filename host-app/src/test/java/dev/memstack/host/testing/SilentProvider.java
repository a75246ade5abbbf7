package dev.memstack.host.testing;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.Turn;

/**
 * A provider that takes every turn, recalls nothing and adds no system prompt block; tests extend
 * it to override the one hook they are about.
 */
public class SilentProvider implements MemoryProvider {

  private final String id;

  public SilentProvider(String id) {
    this.id = id;
  }

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
}
