package dev.memstack.notes;

import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.MemoryProviderFactory;
import dev.memstack.spi.ProviderContext;
import org.pf4j.Extension;

/**
 * The {@code notes} provider type. {@code @Extension} lets PF4J find it: the annotation processor
 * (configured in the pom) lists it in {@code META-INF/extensions.idx}, and PF4J builds it with this
 * no-arg constructor.
 */
@Extension
public final class NotesProviderFactory implements MemoryProviderFactory {

  /** {@code memstack.providers.<id>.config.max-notes}: notes kept per owner, oldest dropped. */
  static final String MAX_NOTES = "max-notes";

  @Override
  public String type() {
    return "notes"; // what `memstack.providers.<id>.type` names; stable across versions
  }

  @Override
  public MemoryProvider create(ProviderContext context) {
    // Validate all configuration here: a bad value throws ProviderConfigException naming the
    // full key, and the host refuses to start with that message.
    int maxNotes = context.config().integer(MAX_NOTES, 1000, 1, 1_000_000);
    return new NotesProvider(context.instanceId(), maxNotes);
  }
}
