package dev.memstack.host.coordination;

import dev.memstack.spi.Coordination;
import java.time.Clock;

/** The host's coordination on a single host: both "hosts" are this process. */
class InProcessCoordinationConformanceTest extends CoordinationConformance {

  private final InProcessCoordination host = new InProcessCoordination(Clock.systemUTC());

  @Override
  protected Coordination coordination(int ignored, String instance) {
    return host.of(instance);
  }

  @Override
  protected boolean expectedShared() {
    return false;
  }
}
