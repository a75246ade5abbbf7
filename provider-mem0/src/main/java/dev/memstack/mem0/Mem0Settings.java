package dev.memstack.mem0;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.support.Require;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The validated configuration of one Mem0 provider instance ({@code
 * memstack.providers.<id>.config.*}). Every problem is reported as a {@link
 * ProviderConfigException} naming the full key; the api key never appears in a message or in {@link
 * #toString()}.
 *
 * @param baseUrl the server's root URL without a trailing slash
 * @param apiKey the key, or {@code null} for an OSS server without auth
 * @param flavor OSS server or Platform
 * @param searchEnabled whether prefetch searches Mem0
 * @param syncEnabled whether finished turns are pushed to Mem0
 * @param maxResults the most hits one prefetch returns
 * @param timeout the time limit of a search, health check, forget or tool call
 * @param threshold the minimum score the server should return, or {@code null} for its default
 * @param infer whether Mem0 extracts facts from a pushed turn (else it stores the messages as they
 *     are)
 * @param syncTimeout the time limit of one push (an OSS add runs an LLM extraction: seconds)
 * @param syncRetries how often a push that failed transiently is retried within one syncTurn
 * @param syncRetryBackoff the wait before the first retry; it doubles with each retry
 * @param breakerFailureThreshold consecutive server faults that open the circuit breaker
 * @param breakerOpen how long the breaker stays open before it lets a probe through
 * @param maxResponseBytes the largest answer body read; a larger one is cut off and fails
 * @param recallLabel the tag put in front of each recalled memory ({@code [Mem0 Recall] ...}), or
 *     {@code null} for none
 */
record Mem0Settings(
    URI baseUrl,
    String apiKey,
    Mem0Flavor flavor,
    boolean searchEnabled,
    boolean syncEnabled,
    int maxResults,
    Duration timeout,
    Double threshold,
    boolean infer,
    Duration syncTimeout,
    int syncRetries,
    Duration syncRetryBackoff,
    int breakerFailureThreshold,
    Duration breakerOpen,
    int maxResponseBytes,
    String recallLabel) {

  static final String BASE_URL = "base-url";
  static final String API_KEY = "api-key";
  static final String FLAVOR = "flavor";
  static final String SEARCH_ENABLED = "search-enabled";
  static final String SYNC_ENABLED = "sync-enabled";
  static final String MAX_RESULTS = "max-results";
  static final String TIMEOUT_MS = "timeout-ms";
  static final String THRESHOLD = "threshold";
  static final String INFER = "infer";
  static final String SYNC_TIMEOUT_MS = "sync-timeout-ms";
  static final String SYNC_RETRIES = "sync-retries";
  static final String SYNC_RETRY_BACKOFF_MS = "sync-retry-backoff-ms";
  static final String BREAKER_FAILURE_THRESHOLD = "breaker-failure-threshold";
  static final String BREAKER_OPEN_MS = "breaker-open-ms";
  static final String MAX_RESPONSE_BYTES = "max-response-bytes";
  static final String RECALL_LABEL = "recall-label";

  /** Every accepted key, in the order the docs list them. */
  static final List<String> KEYS =
      List.of(
          BASE_URL,
          API_KEY,
          FLAVOR,
          SEARCH_ENABLED,
          SYNC_ENABLED,
          MAX_RESULTS,
          TIMEOUT_MS,
          THRESHOLD,
          INFER,
          SYNC_TIMEOUT_MS,
          SYNC_RETRIES,
          SYNC_RETRY_BACKOFF_MS,
          BREAKER_FAILURE_THRESHOLD,
          BREAKER_OPEN_MS,
          MAX_RESPONSE_BYTES,
          RECALL_LABEL);

  static final String DEFAULT_RECALL_LABEL = "Mem0 Recall";
  static final int MAX_RESPONSE_BYTES_LIMIT = 64 * 1024 * 1024;

  Mem0Settings {
    Require.nonNull(
        "baseUrl flavor timeout syncTimeout syncRetryBackoff breakerOpen",
        baseUrl,
        flavor,
        timeout,
        syncTimeout,
        syncRetryBackoff,
        breakerOpen);
  }

  /** Reads and validates the configuration; throws naming the first key at fault. */
  static Mem0Settings from(ProviderConfig config) {
    rejectUnknownKeys(config);
    Mem0Flavor flavor = config.enumValue(FLAVOR, Mem0Flavor.class, Mem0Flavor.OSS);
    URI baseUrl = baseUrl(config, flavor);
    String apiKey = apiKey(config, flavor);
    Double threshold = null;
    if (config.string(THRESHOLD).isPresent()) {
      threshold = config.decimal(THRESHOLD, 0, 0, 1);
    }
    String label = config.string(RECALL_LABEL, DEFAULT_RECALL_LABEL);
    if (label.equalsIgnoreCase("none")) {
      label = null;
    } else if (label.length() > 64 || hasControl(label) || label.contains("]")) {
      throw new ProviderConfigException(
          config.fullKey(RECALL_LABEL),
          "must be up to 64 characters without control characters or ']', or 'none'");
    }
    return new Mem0Settings(
        baseUrl,
        apiKey,
        flavor,
        config.bool(SEARCH_ENABLED, true),
        config.bool(SYNC_ENABLED, true),
        config.integer(MAX_RESULTS, 5, 1, 200),
        Duration.ofMillis(config.integer(TIMEOUT_MS, 3000, 1, 600_000)),
        threshold,
        config.bool(INFER, true),
        Duration.ofMillis(config.integer(SYNC_TIMEOUT_MS, 30_000, 1, 600_000)),
        config.integer(SYNC_RETRIES, 2, 0, 10),
        Duration.ofMillis(config.integer(SYNC_RETRY_BACKOFF_MS, 250, 0, 60_000)),
        config.integer(BREAKER_FAILURE_THRESHOLD, 5, 1, 10_000),
        Duration.ofMillis(config.integer(BREAKER_OPEN_MS, 30_000, 1, 3_600_000)),
        config.integer(MAX_RESPONSE_BYTES, 1024 * 1024, 1024, MAX_RESPONSE_BYTES_LIMIT),
        label);
  }

  private static void rejectUnknownKeys(ProviderConfig config) {
    for (String key : config.keys()) {
      if (KEYS.contains(key)) {
        continue;
      }
      String squashed = squash(key);
      for (String known : KEYS) {
        if (squash(known).equals(squashed)) {
          throw new ProviderConfigException(
              config.fullKey(key), "unknown key; did you mean " + config.fullKey(known) + "?");
        }
      }
      throw new ProviderConfigException(
          config.fullKey(key), "unknown key; accepted keys are " + String.join(", ", KEYS));
    }
  }

  private static URI baseUrl(ProviderConfig config, Mem0Flavor flavor) {
    String key = config.fullKey(BASE_URL);
    String raw =
        config
            .string(BASE_URL)
            .orElseThrow(
                () ->
                    new ProviderConfigException(
                        key,
                        "is required: the Mem0 server's URL, e.g. "
                            + (flavor == Mem0Flavor.OSS
                                ? "http://localhost:8888"
                                : "https://api.mem0.ai")));
    URI uri;
    try {
      uri = new URI(raw);
    } catch (URISyntaxException e) {
      throw new ProviderConfigException(key, "is not a valid URL: " + e.getReason());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new ProviderConfigException(key, "must start with http:// or https://");
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new ProviderConfigException(key, "must name a host");
    }
    if (uri.getRawUserInfo() != null) {
      throw new ProviderConfigException(
          key, "must not contain credentials; put the key in " + config.fullKey(API_KEY));
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new ProviderConfigException(key, "must not have a query or fragment");
    }
    String path = uri.getRawPath() == null ? "" : uri.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return URI.create(scheme + "://" + uri.getRawAuthority() + path);
  }

  private static String apiKey(ProviderConfig config, Mem0Flavor flavor) {
    String key = config.string(API_KEY).orElse(null);
    if (key == null) {
      if (flavor == Mem0Flavor.PLATFORM) {
        throw new ProviderConfigException(
            config.fullKey(API_KEY), "is required when " + config.fullKey(FLAVOR) + "=platform");
      }
      return null;
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (Character.isISOControl(c) || Character.isWhitespace(c) || c > 0x7e) {
        throw new ProviderConfigException(
            config.fullKey(API_KEY),
            "must not contain whitespace, control or non-ASCII characters");
      }
    }
    return key;
  }

  private static boolean hasControl(String value) {
    return value.chars().anyMatch(Character::isISOControl);
  }

  private static String squash(String key) {
    return key.replace("-", "").replace("_", "").replace(".", "").toLowerCase(Locale.ROOT);
  }

  /** The full URL of {@code path} (which starts with a slash) on the server. */
  URI resolve(String pathAndQuery) {
    return URI.create(baseUrl + pathAndQuery);
  }

  @Override
  public String toString() {
    return "Mem0Settings[baseUrl="
        + baseUrl
        + ", apiKey="
        + (apiKey == null ? "none" : "(set)")
        + ", flavor="
        + flavor.wireName()
        + ", searchEnabled="
        + searchEnabled
        + ", syncEnabled="
        + syncEnabled
        + ", maxResults="
        + maxResults
        + ", timeout="
        + timeout.toMillis()
        + "ms, threshold="
        + threshold
        + ", infer="
        + infer
        + ", syncTimeout="
        + syncTimeout.toMillis()
        + "ms]";
  }
}
