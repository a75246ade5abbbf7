package dev.memstack.host.outbox;

import dev.memstack.spi.MemoryProvider;

/**
 * The host tests' {@link dev.memstack.host.testing.TestMembers} under this package's name, so the
 * outbox tests chain {@code run} and {@code stop} on it without an import.
 */
final class TestMembers extends dev.memstack.host.testing.TestMembers {

  @Override
  public TestMembers run(MemoryProvider provider) {
    super.run(provider);
    return this;
  }

  @Override
  public TestMembers stop(String id) {
    super.stop(id);
    return this;
  }
}
