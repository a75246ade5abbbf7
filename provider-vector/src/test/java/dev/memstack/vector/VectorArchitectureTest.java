package dev.memstack.vector;

import dev.memstack.tck.PluginArchitectureContract;

/** The plugin uses the host only through the SPI: of the project, just spi, support and itself. */
class VectorArchitectureTest extends PluginArchitectureContract {

  VectorArchitectureTest() {
    super("dev.memstack.vector");
  }
}
