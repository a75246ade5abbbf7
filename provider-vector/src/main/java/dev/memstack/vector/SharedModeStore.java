package dev.memstack.vector;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.spi.SharedDatabase;
import dev.memstack.vector.pgvector.PgVectorMemoryStoreFactory;
import dev.memstack.vector.pgvector.PgVectorSettings;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The store of a host in shared mode ({@code ProviderContext.sharedDatabase()} present): with
 * {@code store} unset, the pgvector store on the shared database, its URL, user and password taken
 * from the shared database unless {@code jdbc-url}, {@code username} or {@code password} are set
 * (and a second instance, any id but {@code vector}, gets its own default table {@code
 * vector_memory_<id>}); with {@code store=embedded}, a refusal naming the key, since the other
 * hosts could not see a store on this host's disk. Without a shared database the configuration is
 * used as it is.
 */
final class SharedModeStore {

  static final String EMBEDDED = "embedded";

  private SharedModeStore() {}

  /**
   * The configuration to open the store with.
   *
   * @throws ProviderConfigException naming {@code store} when it is the embedded store
   */
  static ProviderConfig apply(
      ProviderConfig config, String instanceId, Optional<SharedDatabase> shared) {
    if (shared.isEmpty()) {
      return config;
    }
    Optional<String> store = config.string("store");
    if (store.isPresent()) {
      if (store.get().toLowerCase(Locale.ROOT).equals(EMBEDDED)) {
        throw new ProviderConfigException(
            config.fullKey("store"),
            "is 'embedded', a store in this host's data dir, but the host runs in shared mode"
                + " (memstack.shared.jdbc-url is set): the other hosts could not see the memories"
                + " stored here and would answer without them. Remove the key to use pgvector on"
                + " the shared database, or set it to pgvector with a jdbc-url of its own");
      }
      if (!store.get().toLowerCase(Locale.ROOT).equals(PgVectorMemoryStoreFactory.NAME)) {
        return config; // an unknown store: the factory names it
      }
    }
    SharedDatabase database = shared.get();
    Map<String, String> values = new LinkedHashMap<>(config.asMap());
    values.put("store", PgVectorMemoryStoreFactory.NAME);
    if (config.string(PgVectorSettings.JDBC_URL).isEmpty()) {
      values.put(PgVectorSettings.JDBC_URL, database.jdbcUrl());
      putIfUnset(config, values, PgVectorSettings.USERNAME, database.username());
      putIfUnset(config, values, PgVectorSettings.PASSWORD, database.password());
    }
    if (config.string(PgVectorSettings.TABLE).isEmpty() && !instanceId.equals("vector")) {
      values.put(PgVectorSettings.TABLE, defaultTable(instanceId));
    }
    return ProviderConfig.of(prefixOf(config), values);
  }

  /** {@code vector_memory_<id>} in lower case, other characters as {@code _}, at most 48. */
  static String defaultTable(String instanceId) {
    String table =
        PgVectorSettings.DEFAULT_TABLE
            + "_"
            + instanceId.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    return table.length() <= 48 ? table : table.substring(0, 48);
  }

  private static void putIfUnset(
      ProviderConfig config, Map<String, String> values, String key, String value) {
    if (value != null && config.string(key).isEmpty()) {
      values.put(key, value);
    }
  }

  /** The prefix of {@code config}'s keys ({@code memstack.providers.<id>.config}). */
  private static String prefixOf(ProviderConfig config) {
    String full = config.fullKey("store");
    return full.equals("store") ? "" : full.substring(0, full.length() - ".store".length());
  }
}
