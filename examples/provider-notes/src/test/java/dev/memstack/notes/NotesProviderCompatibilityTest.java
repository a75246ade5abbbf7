package dev.memstack.notes;

import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ProviderContext;
import dev.memstack.tck.MemoryProviderCompatibilityKit;

/**
 * The compatibility kit against the notes provider on its defaults. The kit builds the context;
 * checks of capabilities the provider does not claim (shared memory, feedback, owner prompt) are
 * skipped by the kit.
 */
class NotesProviderCompatibilityTest extends MemoryProviderCompatibilityKit {

  @Override
  protected MemoryProvider createProvider(ProviderContext context) {
    return new NotesProviderFactory().create(context);
  }
}
