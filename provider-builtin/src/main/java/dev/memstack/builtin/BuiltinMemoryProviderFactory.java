package dev.memstack.builtin;

import dev.memstack.builtin.extraction.MemoryJobSettings;
import dev.memstack.builtin.memory.BuiltinSettings;
import dev.memstack.builtin.memory.DenseSettings;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.MemoryProviderFactory;
import dev.memstack.spi.ProviderContext;
import java.util.HashSet;
import java.util.Set;
import org.pf4j.Extension;

/**
 * The PF4J extension of the builtin plugin: provider type {@code builtin}, which builds a {@link
 * WorkspaceMemoryProvider} over the instance's data directory. The configuration is validated here
 * (see {@link BuiltinSettings} and {@link MemoryJobSettings} for the keys); an unknown or invalid
 * key stops the host at start.
 */
@Extension
public final class BuiltinMemoryProviderFactory implements MemoryProviderFactory {

  /** The provider type. */
  public static final String TYPE = "builtin";

  @Override
  public String type() {
    return TYPE;
  }

  /** The keys read outside {@link BuiltinSettings}: the memory jobs' and the dense view's. */
  private static Set<String> otherKeys() {
    Set<String> keys = new HashSet<>(MemoryJobSettings.KEYS);
    keys.addAll(DenseSettings.KEYS);
    return keys;
  }

  @Override
  public MemoryProvider create(ProviderContext context) {
    return new WorkspaceMemoryProvider(
        context, BuiltinSettings.from(context.config(), otherKeys()));
  }
}
