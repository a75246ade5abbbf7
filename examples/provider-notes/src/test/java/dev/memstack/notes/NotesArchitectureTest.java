package dev.memstack.notes;

import dev.memstack.tck.PluginArchitectureContract;

/** The plugin uses the host only through the SPI: of the project, just spi, support and itself. */
class NotesArchitectureTest extends PluginArchitectureContract {

  NotesArchitectureTest() {
    super("dev.memstack.notes");
  }
}
