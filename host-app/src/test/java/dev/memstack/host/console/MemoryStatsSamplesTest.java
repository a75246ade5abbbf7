package dev.memstack.host.console;

/** The in-memory samples of a single host. */
class MemoryStatsSamplesTest extends StatsSamplesConformance {

  @Override
  StatsSamples store() {
    return new MemoryStatsSamples();
  }
}
