package dev.memstack.builtin.store;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.spi.SharedDatabase;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where the builtin provider keeps its workspace: {@code config.store} = {@code files} (the
 * default: Markdown files under the data directory, a Lucene keyword index beside them) or {@code
 * postgres} (files, keyword index and change versions as rows of one PostgreSQL database, for hosts
 * that share state). In shared mode ({@code memstack.shared.jdbc-url} set on the host) the default
 * is {@code postgres} on the shared database, and {@code files} is refused: a file store is one
 * host's disk, and the other hosts would not see its writes.
 *
 * <p>Keys with {@code store=postgres}: {@code jdbc-url}, {@code username}, {@code password}
 * (defaults: the shared database's), {@code schema} (default {@code public}), {@code table-prefix}
 * (default: the instance id, {@code -} as {@code _}, then {@code _}: {@code builtin_files}), {@code
 * pool-size} (default 4), {@code prompt-poll-interval} (default 2s; 0 = off: how often the prompt
 * blocks are checked for changes made by other hosts, to tell the host's prompt cache).
 *
 * @param kind the store
 * @param postgres the database settings; present exactly for {@link Kind#POSTGRES}
 */
public record StoreSettings(Kind kind, Optional<PgSettings> postgres) {

  /** The stores. */
  public enum Kind {
    FILES,
    POSTGRES
  }

  /** Every key read here. */
  public static final Set<String> KEYS =
      Set.of(
          "store",
          "jdbc-url",
          "username",
          "password",
          "schema",
          "table-prefix",
          "pool-size",
          "prompt-poll-interval");

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,40}");

  /** Files under the data directory. */
  public static StoreSettings files() {
    return new StoreSettings(Kind.FILES, Optional.empty());
  }

  /**
   * Reads and validates the keys.
   *
   * @param instanceId the provider instance, the default table prefix
   * @param shared the host's shared database, present in shared mode
   * @throws ProviderConfigException naming the key that is wrong, including {@code store=files} in
   *     shared mode
   */
  public static StoreSettings from(
      ProviderConfig config, String instanceId, Optional<SharedDatabase> shared) {
    Optional<String> store = config.string("store").map(s -> s.strip().toLowerCase(Locale.ROOT));
    Kind kind;
    if (store.isEmpty()) {
      kind = shared.isPresent() ? Kind.POSTGRES : Kind.FILES;
    } else {
      kind =
          switch (store.get()) {
            case "files" -> Kind.FILES;
            case "postgres" -> Kind.POSTGRES;
            default ->
                throw new ProviderConfigException(
                    config.fullKey("store"),
                    "must be files or postgres, got '" + store.get() + "'");
          };
    }
    if (kind == Kind.FILES) {
      if (shared.isPresent()) {
        throw new ProviderConfigException(
            config.fullKey("store"),
            "is files, but the host runs in shared mode (memstack.shared.jdbc-url is set): files"
                + " on one host's disk are not seen by the other hosts; remove the key (the"
                + " shared database is then used) or set it to postgres");
      }
      for (String key : KEYS) {
        if (!key.equals("store") && config.string(key).isPresent()) {
          throw new ProviderConfigException(
              config.fullKey(key), "only applies with " + config.fullKey("store") + "=postgres");
        }
      }
      return files();
    }
    Optional<String> url = config.string("jdbc-url").or(() -> shared.map(SharedDatabase::jdbcUrl));
    if (url.isEmpty()) {
      throw new ProviderConfigException(
          config.fullKey("jdbc-url"),
          "is required with store=postgres (or run the host in shared mode, whose database is the"
              + " default)");
    }
    if (!url.get().startsWith("jdbc:postgresql:")) {
      throw new ProviderConfigException(
          config.fullKey("jdbc-url"), "must start with jdbc:postgresql:");
    }
    boolean ownUrl = config.string("jdbc-url").isPresent();
    String username =
        config
            .string("username")
            .orElse(ownUrl ? null : shared.map(SharedDatabase::username).orElse(null));
    String password =
        config
            .string("password")
            .orElse(ownUrl ? null : shared.map(SharedDatabase::password).orElse(null));
    String schema = config.string("schema", "public");
    if (!IDENTIFIER.matcher(schema).matches()) {
      throw new ProviderConfigException(
          config.fullKey("schema"),
          "must be a lower-case SQL name (letters, digits, _; at most 41), got '" + schema + "'");
    }
    String prefix =
        config
            .string("table-prefix")
            .orElse(instanceId.toLowerCase(Locale.ROOT).replace('-', '_') + "_");
    if (!IDENTIFIER.matcher(prefix).matches()) {
      throw new ProviderConfigException(
          config.fullKey("table-prefix"),
          (config.string("table-prefix").isPresent()
                  ? ""
                  : "is not set, and the default made from the instance id does not fit: ")
              + "must be a lower-case SQL name (a letter or _ first, then letters, digits, _; at"
              + " most 41), got '"
              + prefix
              + "'");
    }
    int poolSize = config.integer("pool-size", 4, 1, 100);
    Duration poll = config.nonNegativeDuration("prompt-poll-interval", Duration.ofSeconds(2));
    return new StoreSettings(
        Kind.POSTGRES,
        Optional.of(new PgSettings(url.get(), username, password, schema, prefix, poolSize, poll)));
  }
}
