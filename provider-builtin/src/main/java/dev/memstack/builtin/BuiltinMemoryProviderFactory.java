package dev.memstack.builtin;

import dev.memstack.builtin.extraction.MemoryJobSettings;
import dev.memstack.builtin.memory.BuiltinSettings;
import dev.memstack.builtin.memory.DenseSettings;
import dev.memstack.builtin.store.StoreSettings;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.MemoryProviderFactory;
import dev.memstack.spi.ProviderContext;
import java.util.HashSet;
import java.util.Set;
import org.pf4j.Extension;

/**
 * The PF4J extension of the builtin plugin: provider type {@code builtin}, which builds a {@link
 * WorkspaceMemoryProvider} over the instance's data directory or, with {@code store=postgres} and
 * by default in shared mode, over PostgreSQL. The configuration is validated here (see {@link
 * BuiltinSettings}, {@link StoreSettings} and {@link MemoryJobSettings} for the keys); an unknown
 * or invalid key stops the host at start.
 */
@Extension
public final class BuiltinMemoryProviderFactory implements MemoryProviderFactory {

  /** The provider type. */
  public static final String TYPE = "builtin";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public MemoryProvider create(ProviderContext context) {
    Set<String> otherKeys = new HashSet<>(MemoryJobSettings.KEYS);
    otherKeys.addAll(StoreSettings.KEYS);
    otherKeys.addAll(DenseSettings.KEYS);
    BuiltinSettings settings = BuiltinSettings.from(context.config(), otherKeys);
    StoreSettings store =
        StoreSettings.from(context.config(), context.instanceId(), context.sharedDatabase());
    return new WorkspaceMemoryProvider(context, settings, store);
  }
}
