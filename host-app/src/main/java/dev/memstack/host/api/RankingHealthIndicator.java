package dev.memstack.host.api;

import dev.memstack.host.stack.MemoryStack;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code ranking} component of {@code /actuator/health}: always {@code UP} (the fusion ranks
 * when the learned model cannot), with {@code mode} ({@code learned} or {@code fusion}) and the
 * model's name and source, or why the fusion ranks ({@code reason}).
 */
public final class RankingHealthIndicator implements HealthIndicator {

  private final ObjectProvider<MemoryStack> stack;

  public RankingHealthIndicator(ObjectProvider<MemoryStack> stack) {
    this.stack = stack;
  }

  @Override
  public Health health() {
    MemoryStack memoryStack = stack.getIfAvailable();
    if (memoryStack == null) {
      return Health.unknown().build();
    }
    return Health.up().withDetails(memoryStack.rankingStatus()).build();
  }
}
