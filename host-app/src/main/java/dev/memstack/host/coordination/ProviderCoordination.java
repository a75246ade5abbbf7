package dev.memstack.host.coordination;

import dev.memstack.spi.Coordination;
import dev.memstack.spi.SharedDatabase;
import java.util.Optional;

/**
 * What the host hands each provider instance to agree with its peers: a {@link Coordination} per
 * instance id (names of two instances never meet) and, in shared mode, the shared database. {@link
 * InProcessCoordination} on one host, {@link SharedCoordination} over the shared database.
 * Thread-safe.
 */
public interface ProviderCoordination {

  /**
   * The coordination of instance {@code instanceId}; the same answers for every call with that id,
   * also after the instance's plugin was reloaded.
   */
  Coordination of(String instanceId);

  /** The shared database in shared mode; empty on a single host. */
  Optional<SharedDatabase> sharedDatabase();
}
