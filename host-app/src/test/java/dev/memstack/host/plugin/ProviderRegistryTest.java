package dev.memstack.host.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.memstack.host.plugin.PluginHostProperties.Instance;
import dev.memstack.host.plugin.fixture.FixturePlugin;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.stack.SystemPromptCache;
import dev.memstack.host.testing.Concurrently;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallRequest;
import dev.memstack.tck.HashingEmbedder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/**
 * The registry over a real PF4J manager and a fixture plugin built at run time: instances come from
 * configuration, bad configuration stops the start naming the key, and stop/start/reload swap
 * instances without failing calls that are running.
 */
class ProviderRegistryTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey OWNER = OwnerKey.of("user:1");

  @TempDir Path temp;

  private ProviderRegistry registry;

  @AfterEach
  void stop() {
    if (registry != null) {
      registry.stop();
    }
  }

  private ProviderRegistry registry(Map<String, Instance> providers) {
    return registry(providers, ">=0.1.0");
  }

  private ProviderRegistry registry(Map<String, Instance> providers, String requires) {
    Path plugins = temp.resolve("plugins");
    FixturePlugin.build(plugins, requires);
    StaticListableBeanFactory beans = new StaticListableBeanFactory();
    beans.addBean("embedder", new HashingEmbedder());
    PluginHostProperties properties =
        new PluginHostProperties(
            new PluginHostProperties.Plugins(plugins, "0.1.0", Duration.ofSeconds(2)),
            temp.resolve("data"),
            providers);
    SystemPromptCache cache = new SystemPromptCache();
    registry =
        new ProviderRegistry(
            PluginConfiguration.pluginManager(plugins, "0.1.0"),
            properties,
            cache,
            ProviderPorts.local(
                Clock.systemUTC(),
                beans.getBeanProvider(Embedder.class),
                beans.getBeanProvider(LanguageModel.class),
                cache));
    return registry;
  }

  private static Instance instance(
      String type, boolean enabled, int order, Map<String, String> config) {
    return new Instance(type, enabled, order, config, false, 100_000);
  }

  private static Map<String, Instance> one(String id, Instance instance) {
    Map<String, Instance> map = new LinkedHashMap<>();
    map.put(id, instance);
    return map;
  }

  private static Recall recall(StackMember member) {
    return member.provider().prefetch(RecallRequest.of(AGENT, OWNER, "hello"));
  }

  @Test
  void enabledInstancesRunInOrderEachWithItsOwnDataFolder() {
    Map<String, Instance> providers = new LinkedHashMap<>();
    providers.put("second", instance("fixture", true, 5, Map.of()));
    providers.put("first", instance("fixture", true, 1, Map.of()));
    registry(providers).start();

    assertThat(registry.enabled()).extracting(StackMember::id).containsExactly("first", "second");
    assertThat(registry.enabled()).extracting(StackMember::pluginId).containsOnly(FixturePlugin.ID);
    assertThat(temp.resolve("data/first")).isDirectory();
    assertThat(temp.resolve("data/second")).isDirectory();
    assertThat(recall(registry.find("first").orElseThrow()).items())
        .singleElement()
        .satisfies(item -> assertThat(item.text()).isEqualTo("fixture memory about hello"));
    assertThat(registry.plugins())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.state()).isEqualTo("started");
              assertThat(p.providerTypes()).containsExactly("fixture");
            });
  }

  @Test
  void theTypeDefaultsToTheInstanceId() {
    registry(one("fixture", instance(null, true, 0, Map.of()))).start();

    assertThat(registry.find("fixture"))
        .hasValueSatisfying(m -> assertThat(m.type()).isEqualTo("fixture"));
  }

  @Test
  void aDisabledInstanceIsNotCheckedAndIsReportedAsDisabled() {
    Map<String, Instance> providers = new LinkedHashMap<>();
    providers.put("ok", instance("fixture", true, 0, Map.of()));
    providers.put("off", instance("no-such-type", false, 1, Map.of("mode", "broken")));
    registry(providers).start();

    assertThat(registry.enabled()).extracting(StackMember::id).containsExactly("ok");
    assertThat(registry.disabled()).containsExactly("off");
    assertThat(registry.instances())
        .extracting(ProviderInstanceInfo::id, ProviderInstanceInfo::state)
        .containsExactly(tuple("ok", "running"), tuple("off", "disabled"));
  }

  @Test
  void anUnknownTypeStopsTheStartNamingTheKey() {
    registry(one("memo", instance("no-such-type", true, 0, Map.of())));

    assertThatThrownBy(registry::start)
        .isInstanceOf(ProviderStartupException.class)
        .hasMessageContaining("memstack.providers.memo.type")
        .hasMessageContaining("no-such-type")
        .hasMessageContaining("available types: fixture");
    registry = null;
  }

  @Test
  void anInvalidSettingStopsTheStartNamingTheKeyAndClosesWhatWasCreated() {
    Map<String, Instance> providers = new LinkedHashMap<>();
    providers.put("good", instance("fixture", true, 0, Map.of()));
    providers.put("bad", instance("fixture", true, 1, Map.of("mode", "broken")));
    registry(providers);

    assertThatThrownBy(registry::start)
        .isInstanceOf(ProviderStartupException.class)
        .hasMessageStartingWith("memstack.providers.bad.config.mode: must be ok")
        .satisfies(
            e ->
                assertThat(((ProviderStartupException) e).key())
                    .isEqualTo("memstack.providers.bad.config.mode"));
    assertThat(closedMarkers("good")).hasSize(1);
    registry = null;
  }

  @Test
  void aPluginRequiringANewerHostIsNotStartedAndTheStartSaysWhy() {
    registry(one("fixture", instance("fixture", true, 0, Map.of())), ">=9.0.0");

    assertThatThrownBy(registry::start)
        .isInstanceOf(ProviderStartupException.class)
        .hasMessageContaining("memstack.providers.fixture.type")
        .hasMessageContaining("memstack-fixture is disabled")
        .hasMessageContaining(">=9.0.0");
    registry = null;
  }

  @Test
  void stoppingAPluginTakesItsInstancesOutAndStartingBringsNewOnes() {
    registry(one("fixture", instance("fixture", true, 0, Map.of()))).start();
    StackMember before = registry.find("fixture").orElseThrow();

    PluginInfo stopped = registry.stopPlugin(FixturePlugin.ID);

    assertThat(stopped.state()).isEqualTo("stopped");
    assertThat(registry.enabled()).isEmpty();
    assertThat(registry.disabled()).containsExactly("fixture");
    assertThat(registry.instances())
        .singleElement()
        .satisfies(i -> assertThat(i.state()).isEqualTo("stopped"));
    assertThat(closedMarkers("fixture")).hasSize(1);
    assertThatThrownBy(() -> recall(before)).isInstanceOf(IllegalStateException.class);

    PluginInfo started = registry.startPlugin(FixturePlugin.ID);

    assertThat(started.state()).isEqualTo("started");
    StackMember after = registry.find("fixture").orElseThrow();
    assertThat(after).isNotSameAs(before);
    assertThat(recall(after).items()).hasSize(1);
  }

  @Test
  void listenersRunAfterEachChangeAndSeeTheNewMembers() {
    registry(one("fixture", instance("fixture", true, 0, Map.of()))).start();
    List<List<String>> seen = new ArrayList<>();
    registry.onChange(() -> seen.add(registry.enabled().stream().map(StackMember::id).toList()));
    registry.onChange(
        () -> {
          throw new IllegalStateException("a failing listener does not stop the change");
        });

    registry.stopPlugin(FixturePlugin.ID);
    registry.startPlugin(FixturePlugin.ID);
    registry.reloadPlugin(FixturePlugin.ID);

    assertThat(seen).containsExactly(List.of(), List.of("fixture"), List.of(), List.of("fixture"));
    assertThat(registry.find("fixture")).isPresent();
  }

  @Test
  void anUnknownPluginIsNotFound() {
    registry(one("fixture", instance("fixture", true, 0, Map.of()))).start();

    assertThatThrownBy(() -> registry.reloadPlugin("nope"))
        .isInstanceOf(PluginNotFoundException.class)
        .hasMessageContaining("nope");
  }

  @Test
  void reloadWaitsForARunningCallBeforeClosingTheOldInstance() throws Exception {
    registry(one("slow", instance("fixture", true, 0, Map.of("prefetch-delay", "400ms")))).start();
    StackMember old = registry.find("slow").orElseThrow();
    CompletableFuture<Recall> running = CompletableFuture.supplyAsync(() -> recall(old));
    Thread.sleep(100);

    long start = System.nanoTime();
    PluginInfo reloaded = registry.reloadPlugin(FixturePlugin.ID);
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(reloaded.state()).isEqualTo("started");
    assertThat(running.get(2, TimeUnit.SECONDS).items()).hasSize(1);
    assertThat(tookMs).as("reload waited for the running call").isGreaterThanOrEqualTo(200);
    StackMember fresh = registry.find("slow").orElseThrow();
    assertThat(fresh).isNotSameAs(old);
    assertThat(fresh.classLoader()).isNotSameAs(old.classLoader());
    assertThat(closedMarkers("slow")).hasSize(1);
    assertThat(recall(fresh).items()).hasSize(1);
  }

  @Test
  void callsRunningThroughRepeatedReloadsDoNotFail() throws Exception {
    registry(one("fixture", instance("fixture", true, 0, Map.of("prefetch-delay", "5ms")))).start();
    AtomicInteger calls = new AtomicInteger();
    Concurrently callers =
        Concurrently.repeat(
            4,
            (caller, round) -> {
              for (StackMember member : registry.enabled()) {
                assertThat(recall(member).items()).hasSize(1);
                calls.incrementAndGet();
              }
            });
    for (int i = 0; i < 5; i++) {
      Thread.sleep(50);
      registry.reloadPlugin(FixturePlugin.ID);
    }
    Thread.sleep(50);
    callers.stop(Duration.ofSeconds(5));

    assertThat(callers.failures()).isEmpty();
    assertThat(calls.get()).isGreaterThan(20);
    assertThat(closedMarkers("fixture")).hasSize(5);
  }

  private List<Path> closedMarkers(String id) {
    try (Stream<Path> files = Files.list(temp.resolve("data").resolve(id))) {
      return files.filter(f -> f.getFileName().toString().startsWith("closed-")).toList();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
