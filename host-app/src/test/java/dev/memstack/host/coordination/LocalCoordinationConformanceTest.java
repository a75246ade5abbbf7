package dev.memstack.host.coordination;

import dev.memstack.spi.Coordination;
import java.time.Clock;

/** The SPI's in-process coordination ({@link Coordination#local}), one for both "hosts". */
class LocalCoordinationConformanceTest extends CoordinationConformance {

  private final Coordination local = Coordination.local(Clock.systemUTC());

  @Override
  protected Coordination coordination(int host, String instance) {
    return local;
  }

  @Override
  protected boolean keepsInstancesApart() {
    return false;
  }

  @Override
  protected boolean expectedShared() {
    return false;
  }
}
