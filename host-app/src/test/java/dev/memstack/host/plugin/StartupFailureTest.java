package dev.memstack.host.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.host.MemstackApplication;
import dev.memstack.host.plugin.fixture.FixturePlugin;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ConfigurableApplicationContext;

/** The whole host refuses to start on a bad provider configuration and names the key. */
class StartupFailureTest {

  @TempDir Path temp;

  private ConfigurableApplicationContext start(String... properties) {
    Path plugins = temp.resolve("plugins");
    FixturePlugin.build(plugins, ">=0.1.0");
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("server.port", "0");
    settings.put("memstack.plugins.dir", plugins.toString());
    settings.put("memstack.data-dir", temp.resolve("data").toString());
    settings.put("memstack.models.onnx.warm-up", "false");
    // the real plugins are not in this folder: only the fixture runs
    settings.put("memstack.providers.builtin.enabled", "false");
    settings.put("memstack.providers.vector.enabled", "false");
    for (String property : properties) {
      String[] keyValue = property.split("=", 2);
      settings.put(keyValue[0], keyValue[1]);
    }
    List<String> args = new ArrayList<>();
    settings.forEach((key, value) -> args.add("--" + key + "=" + value));
    return new SpringApplicationBuilder(MemstackApplication.class).run(args.toArray(String[]::new));
  }

  @Test
  void anInvalidProviderSettingStopsTheHostNamingTheKey() {
    assertThatThrownBy(
            () ->
                start(
                    "memstack.providers.fixture.type=fixture",
                    "memstack.providers.fixture.config.mode=broken"))
        .satisfies(
            e ->
                assertThat(startupFailure(e))
                    .hasMessageStartingWith("memstack.providers.fixture.config.mode: must be ok")
                    .extracting(ProviderStartupException::key)
                    .isEqualTo("memstack.providers.fixture.config.mode"));
  }

  @Test
  void aMaxBacklogBelowOneStopsTheHostNamingTheKey() {
    assertThatThrownBy(
            () ->
                start(
                    "memstack.providers.fixture.type=fixture",
                    "memstack.providers.fixture.optional=true",
                    "memstack.providers.fixture.max-backlog=0"))
        .satisfies(
            e ->
                assertThat(startupFailure(e))
                    .hasMessageContaining("must be at least 1")
                    .extracting(ProviderStartupException::key)
                    .isEqualTo("memstack.providers.fixture.max-backlog"));
  }

  @Test
  void enablingTheRealMem0PluginWithoutItsBaseUrlStopsTheHostNamingTheKey() {
    PluginZips.copyAllTo(temp.resolve("plugins"));

    assertThatThrownBy(() -> start("memstack.providers.mem0.enabled=true"))
        .satisfies(
            e ->
                assertThat(startupFailure(e).key())
                    .isEqualTo("memstack.providers.mem0.config.base-url"));
  }

  /** An unknown type, or an enabled provider whose plugin is missing, stops the host. */
  @ParameterizedTest(name = "{0} stops the host naming {1}")
  @CsvSource(
      quoteCharacter = '"',
      value = {
        "memstack.providers.extra.type=no-such-type, memstack.providers.extra.type, no-such-type",
        "memstack.providers.vector.enabled=true, memstack.providers.vector.type, 'vector'"
      })
  void aProviderThatCannotBeMadeStopsTheHostNamingTheKey(
      String property, String key, String named) {
    assertThatThrownBy(() -> start(property))
        .satisfies(e -> assertThat(startupFailure(e)).isNotNull())
        .hasMessageContaining(key)
        .hasMessageContaining(named);
  }

  @Test
  void theFailureReportNamesTheKeyToFix() {
    ProviderStartupException failure =
        new ProviderStartupException("memstack.providers.mem0.config.base-url", "is required");

    FailureAnalysis analysis = new ProviderStartupFailureAnalyzer().analyze(failure);

    assertThat(analysis.getDescription())
        .contains("memstack.providers.mem0.config.base-url: is required");
    assertThat(analysis.getAction()).contains("memstack.providers.mem0.config.base-url");
  }

  @Test
  void withValidSettingsTheHostStartsAndStopsCleanly() {
    try (ConfigurableApplicationContext context =
        start("memstack.providers.fixture.type=fixture")) {
      ProviderRegistry registry = context.getBean(ProviderRegistry.class);
      assertThat(registry.enabled()).extracting(m -> m.id()).containsExactly("fixture");
      assertThat(temp.resolve("data/fixture")).isDirectory();
    }
  }

  private static ProviderStartupException startupFailure(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ProviderStartupException startup) {
        return startup;
      }
    }
    throw new AssertionError("no ProviderStartupException in the causes of " + failure, failure);
  }
}
