package dev.memstack.mem0;

import dev.memstack.tck.PluginArchitectureContract;

/** The plugin uses the host only through the SPI: of the project, just spi, support and itself. */
class Mem0ArchitectureTest extends PluginArchitectureContract {

  Mem0ArchitectureTest() {
    super("dev.memstack.mem0");
  }
}
