package dev.memstack.vector;

import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.MemoryProviderFactory;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.spi.ProviderContext;
import dev.memstack.support.ConsolidationSettings;
import dev.memstack.vector.contradictions.ContradictionQueue;
import dev.memstack.vector.facts.FactSettings;
import dev.memstack.vector.lifecycle.LifecycleSettings;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.MemoryVectorStoreFactory;
import dev.memstack.vector.store.ModelMismatchException;
import dev.memstack.vector.store.StoreContext;
import dev.memstack.vector.store.StoreEmbedder;
import dev.memstack.vector.types.MemoryTypes;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.pf4j.Extension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code vector} provider type: checks the whole configuration (unknown keys included), opens
 * the configured store and builds a {@link VectorMemoryProvider}. A model mismatch of the stored
 * vectors fails here, with a message naming the {@code reembed} key. In shared mode the store is
 * pgvector on the shared database unless configured otherwise ({@link SharedModeStore}); the
 * provider coordinates its scheduled and per-owner work through {@code context.coordination()}.
 */
@Extension
public final class VectorMemoryProviderFactory implements MemoryProviderFactory {

  private static final Logger LOG = LoggerFactory.getLogger(VectorMemoryProviderFactory.class);

  @Override
  public String type() {
    return "vector";
  }

  @Override
  public MemoryProvider create(ProviderContext context) {
    Map<String, MemoryVectorStoreFactory> stores = StoreFactories.all();
    checkKeys(context.config(), stores);
    ProviderConfig config =
        SharedModeStore.apply(context.config(), context.instanceId(), context.sharedDatabase());
    VectorSettings settings = VectorSettings.from(config);
    FactSettings factSettings = FactSettings.from(config);
    LifecycleSettings lifecycleSettings = LifecycleSettings.from(config);
    TrustSettings trustSettings = TrustSettings.from(config);
    ConsolidationSettings consolidationSettings = ConsolidationSettings.from(config);
    MemoryVectorStoreFactory factory = stores.get(settings.store());
    if (factory == null) {
      throw new ProviderConfigException(
          config.fullKey("store"),
          "must be one of " + String.join(", ", stores.keySet()) + ", got " + settings.store());
    }
    StoreEmbedder embedder = new StoreEmbedder(context.embedder(), settings.embedBatchSize());
    StoreContext storeContext =
        new StoreContext(
            context.instanceId(),
            config,
            context.dataDir(),
            embedder,
            settings.reembed(),
            context.clock());
    MemoryVectorStore store;
    try {
      store = factory.open(storeContext);
    } catch (ModelMismatchException e) {
      throw new ProviderConfigException(config.fullKey("reembed"), e.getMessage());
    }
    MemoryTypes types;
    ContradictionQueue contradictions;
    try {
      types = new MemoryTypes(StoreFactories.customTypes(store));
      contradictions = StoreFactories.contradictions(store);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    LOG.info(
        "vector provider {}: store {} with model {} ({} dimensions)",
        context.instanceId(),
        factory.name(),
        embedder.modelId(),
        embedder.dimension());
    return new VectorMemoryProvider(
        context.instanceId(),
        factory.name(),
        store,
        embedder,
        settings,
        context.clock(),
        context.languageModel(),
        factSettings,
        lifecycleSettings,
        trustSettings,
        context.coordination(),
        types,
        contradictions,
        consolidationSettings);
  }

  private static void checkKeys(
      ProviderConfig config, Map<String, MemoryVectorStoreFactory> stores) {
    Set<String> known = new TreeSet<>(VectorSettings.KEYS);
    known.addAll(FactSettings.KEYS);
    known.addAll(LifecycleSettings.KEYS);
    known.addAll(TrustSettings.KEYS);
    known.addAll(ConsolidationSettings.KEYS);
    stores.values().forEach(f -> known.addAll(f.configKeys()));
    for (String key : config.keys()) {
      if (!known.contains(key)) {
        throw new ProviderConfigException(
            config.fullKey(key),
            "is not a setting of the vector provider; known settings: " + known);
      }
    }
  }
}
