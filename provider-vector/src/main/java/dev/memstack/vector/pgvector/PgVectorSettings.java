package dev.memstack.vector.pgvector;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.support.Require;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The pgvector store's settings, read from the provider instance's configuration.
 *
 * @param jdbcUrl {@code jdbc-url}, required: {@code jdbc:postgresql://host:port/database}
 * @param username {@code username}, or {@code null} to take it from the URL or the driver default
 * @param password {@code password}, or {@code null}; never printed
 * @param schema {@code schema} (default {@value #DEFAULT_SCHEMA}), created when missing
 * @param table {@code table} (default {@value #DEFAULT_TABLE}); the model record goes in {@code
 *     <table>_meta}
 * @param poolSize {@code pool-size} (default 8): most connections open at once
 * @param efSearch {@code ef-search} (default 400): HNSW candidate list for approximate searches
 * @param exactSearchLimit {@code exact-search-limit} (default 5000): filters matching at most this
 *     many records are searched exactly; larger ones are planned by PostgreSQL (the HNSW index with
 *     iterative scans for broad filters)
 * @param hnswM {@code hnsw-m} (default 16): HNSW graph degree, used when the index is created
 * @param hnswEfConstruction {@code hnsw-ef-construction} (default 128): HNSW build candidate list,
 *     used when the index is created
 * @param textSearchConfig {@code text-search-config} (default {@value
 *     #DEFAULT_TEXT_SEARCH_CONFIG}): the PostgreSQL text search configuration of keyword search
 *     ({@code simple} for no stemming and no stop words, e.g. for Chinese); each one gets its own
 *     GIN index
 */
public record PgVectorSettings(
    String jdbcUrl,
    String username,
    String password,
    String schema,
    String table,
    int poolSize,
    int efSearch,
    int exactSearchLimit,
    int hnswM,
    int hnswEfConstruction,
    String textSearchConfig) {

  public static final String JDBC_URL = "jdbc-url";
  public static final String USERNAME = "username";
  public static final String PASSWORD = "password";
  public static final String SCHEMA = "schema";
  public static final String TABLE = "table";
  public static final String POOL_SIZE = "pool-size";
  public static final String EF_SEARCH = "ef-search";
  public static final String EXACT_SEARCH_LIMIT = "exact-search-limit";
  public static final String HNSW_M = "hnsw-m";
  public static final String HNSW_EF_CONSTRUCTION = "hnsw-ef-construction";
  public static final String TEXT_SEARCH_CONFIG = "text-search-config";

  /** Every key this store reads. */
  public static final Set<String> KEYS =
      Set.of(
          JDBC_URL,
          USERNAME,
          PASSWORD,
          SCHEMA,
          TABLE,
          POOL_SIZE,
          EF_SEARCH,
          EXACT_SEARCH_LIMIT,
          HNSW_M,
          HNSW_EF_CONSTRUCTION,
          TEXT_SEARCH_CONFIG);

  public static final String DEFAULT_SCHEMA = "memstack";
  public static final String DEFAULT_TABLE = "vector_memory";
  public static final int DEFAULT_POOL_SIZE = 8;
  public static final int DEFAULT_EF_SEARCH = 400;
  public static final int DEFAULT_EXACT_SEARCH_LIMIT = 5_000;
  public static final int DEFAULT_HNSW_M = 16;
  public static final int DEFAULT_HNSW_EF_CONSTRUCTION = 128;
  public static final String DEFAULT_TEXT_SEARCH_CONFIG = "english";

  /** Lower-case SQL identifiers that need no quoting; {@code _meta} must still fit in 63 bytes. */
  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,47}");

  public PgVectorSettings {
    Require.nonNull(
        "jdbcUrl schema table textSearchConfig", jdbcUrl, schema, table, textSearchConfig);
    if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "jdbcUrl must start with jdbc:postgresql:, got " + redact(jdbcUrl));
    }
    if (!IDENTIFIER.matcher(textSearchConfig).matches()) {
      throw new IllegalArgumentException(
          "textSearchConfig must match " + IDENTIFIER + ", got " + textSearchConfig);
    }
    if (!IDENTIFIER.matcher(schema).matches() || !IDENTIFIER.matcher(table).matches()) {
      throw new IllegalArgumentException(
          "schema and table must match " + IDENTIFIER + ", got " + schema + "." + table);
    }
    if (poolSize < 1 || efSearch < 1 || exactSearchLimit < 0) {
      throw new IllegalArgumentException(
          "poolSize and efSearch must be positive and exactSearchLimit not negative");
    }
    if (hnswM < 2 || hnswM > 100 || hnswEfConstruction < 2 * hnswM || hnswEfConstruction > 1000) {
      throw new IllegalArgumentException(
          "hnswM must be 2-100 and hnswEfConstruction between 2 * hnswM and 1000");
    }
  }

  /** Defaults for everything but the connection. */
  public static PgVectorSettings of(String jdbcUrl, String username, String password) {
    return new PgVectorSettings(
        jdbcUrl,
        username,
        password,
        DEFAULT_SCHEMA,
        DEFAULT_TABLE,
        DEFAULT_POOL_SIZE,
        DEFAULT_EF_SEARCH,
        DEFAULT_EXACT_SEARCH_LIMIT,
        DEFAULT_HNSW_M,
        DEFAULT_HNSW_EF_CONSTRUCTION,
        DEFAULT_TEXT_SEARCH_CONFIG);
  }

  /** A copy in another schema (tests and benchmarks use one schema each). */
  public PgVectorSettings withSchema(String otherSchema) {
    return new PgVectorSettings(
        jdbcUrl,
        username,
        password,
        otherSchema,
        table,
        poolSize,
        efSearch,
        exactSearchLimit,
        hnswM,
        hnswEfConstruction,
        textSearchConfig);
  }

  /** A copy with another exact-search limit. */
  public PgVectorSettings withExactSearchLimit(int limit) {
    return new PgVectorSettings(
        jdbcUrl,
        username,
        password,
        schema,
        table,
        poolSize,
        efSearch,
        limit,
        hnswM,
        hnswEfConstruction,
        textSearchConfig);
  }

  /**
   * Reads and checks every key; an error names the full key and never contains a secret.
   *
   * @throws ProviderConfigException for a missing or bad value
   */
  public static PgVectorSettings from(ProviderConfig config) {
    String url = config.required(JDBC_URL);
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new ProviderConfigException(
          config.fullKey(JDBC_URL),
          "must be a PostgreSQL JDBC URL such as jdbc:postgresql://localhost:5432/memstack, got "
              + redact(url));
    }
    return new PgVectorSettings(
        url,
        config.string(USERNAME).orElse(null),
        config.string(PASSWORD).orElse(null),
        identifier(config, SCHEMA, DEFAULT_SCHEMA),
        identifier(config, TABLE, DEFAULT_TABLE),
        config.integer(POOL_SIZE, DEFAULT_POOL_SIZE, 1, 200),
        config.integer(EF_SEARCH, DEFAULT_EF_SEARCH, 1, 1000),
        config.integer(EXACT_SEARCH_LIMIT, DEFAULT_EXACT_SEARCH_LIMIT, 0, 10_000_000),
        hnswM(config),
        config.integer(HNSW_EF_CONSTRUCTION, DEFAULT_HNSW_EF_CONSTRUCTION, 4, 1000),
        identifier(config, TEXT_SEARCH_CONFIG, DEFAULT_TEXT_SEARCH_CONFIG));
  }

  private static int hnswM(ProviderConfig config) {
    int m = config.integer(HNSW_M, DEFAULT_HNSW_M, 2, 100);
    int ef = config.integer(HNSW_EF_CONSTRUCTION, DEFAULT_HNSW_EF_CONSTRUCTION, 4, 1000);
    if (ef < 2 * m) {
      throw new ProviderConfigException(
          config.fullKey(HNSW_EF_CONSTRUCTION),
          "must be at least twice " + config.fullKey(HNSW_M) + " (" + m + "), got " + ef);
    }
    return m;
  }

  private static String identifier(ProviderConfig config, String key, String fallback) {
    String value = config.string(key, fallback);
    if (!IDENTIFIER.matcher(value).matches()) {
      throw new ProviderConfigException(
          config.fullKey(key),
          "must be a lower-case SQL name ([a-z_][a-z0-9_]*, at most 48 characters), got " + value);
    }
    return value;
  }

  /** The JDBC URL with any {@code password=} parameter masked, safe to print. */
  public String safeUrl() {
    return redact(jdbcUrl);
  }

  static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&]*", "$1****");
  }

  /** {@code schema.table}, for messages. */
  public String tableName() {
    return schema + "." + table;
  }

  @Override
  public String toString() {
    return "PgVectorSettings[url="
        + safeUrl()
        + ", username="
        + username
        + ", password="
        + (password == null ? "unset" : "****")
        + ", table="
        + tableName()
        + ", poolSize="
        + poolSize
        + ", efSearch="
        + efSearch
        + ", exactSearchLimit="
        + exactSearchLimit
        + ", hnswM="
        + hnswM
        + ", hnswEfConstruction="
        + hnswEfConstruction
        + ", textSearchConfig="
        + textSearchConfig
        + "]";
  }
}
