package dev.memstack.mem0;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Mem0 settings")
class Mem0SettingsTest {

  private static final String PREFIX = "memstack.providers.mem0.config";

  private static Mem0Settings settings(String... pairs) {
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      values.put(pairs[i], pairs[i + 1]);
    }
    return Mem0Settings.from(ProviderConfig.of(PREFIX, values));
  }

  private static void rejects(String expectedMessage, String... pairs) {
    assertThatThrownBy(() -> settings(pairs))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessage(expectedMessage);
  }

  @Test
  @DisplayName("defaults follow the seeds: search and sync on, 5 results, 3 s")
  void defaults() {
    Mem0Settings s = settings("base-url", "http://localhost:8888/");

    assertThat(s.baseUrl()).hasToString("http://localhost:8888");
    assertThat(s.flavor()).isEqualTo(Mem0Flavor.OSS);
    assertThat(s.apiKey()).isNull();
    assertThat(s.searchEnabled()).isTrue();
    assertThat(s.syncEnabled()).isTrue();
    assertThat(s.maxResults()).isEqualTo(5);
    assertThat(s.timeout()).isEqualTo(Duration.ofMillis(3000));
    assertThat(s.threshold()).isNull();
    assertThat(s.infer()).isTrue();
    assertThat(s.syncTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.syncRetries()).isEqualTo(2);
    assertThat(s.breakerFailureThreshold()).isEqualTo(5);
    assertThat(s.breakerOpen()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.maxResponseBytes()).isEqualTo(1024 * 1024);
    assertThat(s.recallLabel()).isEqualTo("Mem0 Recall");
  }

  @Test
  @DisplayName("a base URL with a path prefix keeps it, without trailing slashes")
  void aPathPrefixIsKept() {
    assertThat(settings("base-url", "https://proxy.example/mem0//").resolve("/search"))
        .hasToString("https://proxy.example/mem0/search");
  }

  @Test
  @DisplayName("base-url is required and must be an http(s) URL without credentials")
  void baseUrlIsValidated() {
    rejects(PREFIX + ".base-url: is required: the Mem0 server's URL, e.g. http://localhost:8888");
    rejects(PREFIX + ".base-url: must start with http:// or https://", "base-url", "ftp://x");
    rejects(PREFIX + ".base-url: must start with http:// or https://", "base-url", "localhost");
    rejects(
        PREFIX + ".base-url: must not contain credentials; put the key in " + PREFIX + ".api-key",
        "base-url",
        "https://me:secret@api.mem0.ai");
    rejects(
        PREFIX + ".base-url: must not have a query or fragment",
        "base-url",
        "http://localhost:8888?x=1");
  }

  @Test
  @DisplayName("the Platform needs a key and knows its own URL as the example")
  void thePlatformNeedsAKey() {
    rejects(
        PREFIX + ".base-url: is required: the Mem0 server's URL, e.g. https://api.mem0.ai",
        "flavor",
        "platform");
    rejects(
        PREFIX + ".api-key: is required when " + PREFIX + ".flavor=platform",
        "flavor",
        "platform",
        "base-url",
        "https://api.mem0.ai");
    assertThat(
            settings("flavor", "PLATFORM", "base-url", "https://api.mem0.ai", "api-key", "m0-x")
                .flavor())
        .isEqualTo(Mem0Flavor.PLATFORM);
  }

  @Test
  @DisplayName("numbers and flags out of range name their full key")
  void rangesNameTheirKey() {
    String url = "http://localhost:8888";
    rejects(
        PREFIX + ".flavor: must be one of oss, platform, got cloud",
        "base-url",
        url,
        "flavor",
        "cloud");
    rejects(
        PREFIX + ".max-results: must be between 1 and 200, got 0",
        "base-url",
        url,
        "max-results",
        "0");
    rejects(
        PREFIX + ".timeout-ms: must be an integer, got 3s", "base-url", url, "timeout-ms", "3s");
    rejects(
        PREFIX + ".threshold: must be between 0 and 1, got 1.5",
        "base-url",
        url,
        "threshold",
        "1.5");
    rejects(
        PREFIX + ".threshold: must be between 0 and 1, got NaN",
        "base-url",
        url,
        "threshold",
        "NaN");
    rejects(
        PREFIX + ".sync-enabled: must be true or false, got yes",
        "base-url",
        url,
        "sync-enabled",
        "yes");
    rejects(
        PREFIX + ".max-response-bytes: must be between 1024 and 67108864, got 100",
        "base-url",
        url,
        "max-response-bytes",
        "100");
  }

  @Test
  @DisplayName("unknown keys are refused, with a hint for the seeds' camelCase names")
  void unknownKeysAreRefused() {
    rejects(
        PREFIX + ".baseUrl: unknown key; did you mean " + PREFIX + ".base-url?",
        "baseUrl",
        "http://localhost:8888");
    assertThatThrownBy(() -> settings("base-url", "http://localhost:8888", "colour", "red"))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageStartingWith(
            PREFIX + ".colour: unknown key; accepted keys are base-url, api-key");
  }

  @Test
  @DisplayName("the api key is never shown, neither in toString nor in errors")
  void theApiKeyIsNeverShown() {
    String key = "m0sk_very-secret-value";
    Mem0Settings s = settings("base-url", "http://localhost:8888", "api-key", key);

    assertThat(s.apiKey()).isEqualTo(key);
    assertThat(s.toString()).doesNotContain(key).contains("apiKey=(set)");
    assertThatThrownBy(
            () -> settings("base-url", "http://localhost:8888", "api-key", "m0sk_bad value\n"))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageNotContaining("m0sk_bad")
        .hasMessageContaining(PREFIX + ".api-key");
  }

  @Test
  @DisplayName("the recall label can be changed or switched off")
  void theRecallLabelCanBeChangedOrSwitchedOff() {
    String url = "http://localhost:8888";
    assertThat(settings("base-url", url, "recall-label", "none").recallLabel()).isNull();
    assertThat(settings("base-url", url, "recall-label", "Mem0").recallLabel()).isEqualTo("Mem0");
    rejects(
        PREFIX
            + ".recall-label: must be up to 64 characters without control characters or ']',"
            + " or 'none'",
        "base-url",
        url,
        "recall-label",
        "a]b");
  }
}
