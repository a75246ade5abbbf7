package dev.memstack.builtin;

import dev.memstack.tck.PluginArchitectureContract;

/** The plugin uses the host only through the SPI: of the project, just spi, support and itself. */
class BuiltinArchitectureTest extends PluginArchitectureContract {

  BuiltinArchitectureTest() {
    super("dev.memstack.builtin");
  }
}
