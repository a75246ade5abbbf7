package dev.memstack.builtin.extraction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.BuiltinMemoryProviderFactory;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.support.CoordinatedWork;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.RecordingCoordination;
import dev.memstack.tck.TestProviderContext;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two "hosts" (two builtin providers with data dirs of their own) sharing one coordination that
 * looks like shared mode: scheduled dreaming runs once per schedule, and the extraction's cooldown
 * and lock and the dreaming lock hold across them.
 */
class MemoryJobsAcrossHostsTest {

  private static final Instant START = Instant.parse("2026-04-01T09:30:00Z");
  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey ALICE = OwnerKey.of("user:1");
  private static final OwnerKey BOB = OwnerKey.of("user:2");

  @TempDir Path dir;

  private final MutableClock clock = MutableClock.at(START);
  private final RecordingCoordination shared = RecordingCoordination.shared(clock);
  private final List<MemoryProvider> providers = new ArrayList<>();

  @AfterEach
  void close() {
    providers.forEach(MemoryProvider::close);
  }

  private MemoryProvider host(String name, Coordination coordination, Map<String, String> config) {
    Map<String, String> all =
        new HashMap<>(Map.of("schedule-check-interval", "1h", "auto-summarize-enabled", "false"));
    all.putAll(config);
    MemoryProvider provider =
        new BuiltinMemoryProviderFactory()
            .create(
                TestProviderContext.builder()
                    .instanceId("builtin")
                    .config(all)
                    .dataDir(dir.resolve(name))
                    .clock(clock)
                    .languageModel(new ScriptedLanguageModel())
                    .coordination(coordination)
                    .build());
    providers.add(provider);
    return provider;
  }

  private MemoryProvider host(String name) {
    return host(name, shared, Map.of());
  }

  private static void twoTurns(MemoryProvider provider, OwnerKey owner) {
    for (String text :
        new String[] {"Hello, I am planning a new service", "My favourite language is Kotlin"}) {
      provider.syncTurn(
          new Turn(
              UUID.randomUUID().toString(),
              AGENT,
              owner,
              "c1",
              text,
              "Noted: " + text,
              TriggerSource.WEB,
              START));
    }
  }

  private static <T> T field(MemoryProvider provider, String name, Class<T> type) {
    try {
      var field = provider.getClass().getDeclaredField(name);
      field.setAccessible(true);
      return type.cast(field.get(provider));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Dreaming dreaming(MemoryProvider provider) {
    return field(provider, "dreaming", Dreaming.class);
  }

  private static MemoryExtraction extraction(MemoryProvider provider) {
    return field(provider, "extraction", MemoryExtraction.class);
  }

  @Test
  void scheduledDreamingRunsOnOneHostPerScheduledTime() {
    MemoryProvider a = host("a");
    MemoryProvider b = host("b");
    twoTurns(a, ALICE);
    twoTurns(b, ALICE);
    assertThat(dreaming(a).tick()).isZero();
    assertThat(dreaming(b).tick()).isZero();

    clock.set(Instant.parse("2026-04-02T03:00:05Z"));
    int ran = dreaming(a).tick();
    clock.set(Instant.parse("2026-04-02T03:00:40Z")); // host b's check comes a little later
    ran += dreaming(b).tick();

    assertThat(ran).isEqualTo(1);
    assertThat(shared.claims())
        .containsExactly(
            "dreaming:a1@2026-04-02T03:00:00Z", "dreaming:a1@2026-04-02T03:00:00Z (taken)");
    assertThat(dreaming(b).lastRun(AGENT)).as("b did not dream").isEmpty();
    assertThat(dreaming(b).nextRun(AGENT)).contains(Instant.parse("2026-04-03T03:00:00Z"));

    clock.set(Instant.parse("2026-04-03T03:00:01Z"));
    assertThat(dreaming(b).tick() + dreaming(a).tick()).as("the next night: once").isEqualTo(1);
    assertThat(shared.held()).isEmpty();
  }

  @Test
  void aDreamRunningOnAnotherHostMakesAManualOneSkip() {
    MemoryProvider a = host("a");
    twoTurns(a, ALICE);
    Coordination.Lease otherHost =
        shared.tryLock("dreaming:a1", Duration.ofMinutes(5)).orElseThrow();

    assertThat(dreaming(a).run(AGENT, null, "manual")).isEmpty();
    otherHost.close();
    assertThat(dreaming(a).run(AGENT, null, "manual")).isPresent();
  }

  @Test
  void theHostsTakeTurnsAtTheOwnersOfARun() {
    Map<String, String> oneOwner = Map.of("emergence-max-owners-per-run", "1");
    MemoryProvider a = host("a", shared, oneOwner);
    MemoryProvider b = host("b", shared, oneOwner);
    for (MemoryProvider p : List.of(a, b)) {
      twoTurns(p, ALICE);
      twoTurns(p, BOB);
    }

    Optional<Dreaming.Run> first = dreaming(a).run(AGENT, null, "manual");
    Optional<Dreaming.Run> second = dreaming(b).run(AGENT, null, "manual");

    assertThat(personalOwners(first.orElseThrow())).containsExactly(ALICE);
    assertThat(personalOwners(second.orElseThrow())).containsExactly(BOB);
  }

  private static List<OwnerKey> personalOwners(Dreaming.Run run) {
    return run.buckets().stream()
        .filter(bucket -> bucket.owner() != null)
        .map(Dreaming.BucketRun::owner)
        .toList();
  }

  @Test
  void theExtractionCooldownHoldsAcrossHosts() {
    MemoryProvider a = host("a");
    MemoryProvider b = host("b");
    twoTurns(a, ALICE);
    twoTurns(b, ALICE);

    MemoryExtraction.Outcome onA = extraction(a).run(AGENT, ALICE, "c1", false);
    MemoryExtraction.Outcome onB = extraction(b).run(AGENT, ALICE, "c1", false);

    assertThat(onA.status()).isNotEqualTo(MemoryExtraction.Status.SKIPPED);
    assertThat(onB.status()).isEqualTo(MemoryExtraction.Status.SKIPPED);
    assertThat(onB.reason()).contains("cooling down").contains("another host");
    assertThat(extraction(b).run(AGENT, ALICE, "c1", true).status())
        .as("a manual run is not stopped by the cooldown")
        .isNotEqualTo(MemoryExtraction.Status.SKIPPED);

    clock.advance(Duration.ofMinutes(6));
    assertThat(extraction(b).run(AGENT, ALICE, "c1", false).status())
        .isNotEqualTo(MemoryExtraction.Status.SKIPPED);
    assertThat(shared.held()).isEmpty();
  }

  @Test
  void anExtractionRunningOnAnotherHostMakesThisOneSkip() {
    MemoryProvider b = host("b");
    twoTurns(b, ALICE);
    Coordination.Lease otherHost =
        shared
            .tryLock(CoordinatedWork.ownerWork("extraction", "a1", "user:1"), Duration.ofMinutes(5))
            .orElseThrow();

    MemoryExtraction.Outcome outcome = extraction(b).run(AGENT, ALICE, "c1", true);

    assertThat(outcome.status()).isEqualTo(MemoryExtraction.Status.SKIPPED);
    assertThat(outcome.reason()).contains("running on another host");
    otherHost.close();
  }

  @Test
  void anUnreachableCoordinationSkipsWithAReasonAndOneHostAsksNothing() {
    MemoryProvider down =
        host("down", RecordingCoordination.shared(clock).refuseAll(true), Map.of());
    twoTurns(down, ALICE);
    MemoryExtraction.Outcome outcome = extraction(down).run(AGENT, ALICE, "c1", false);
    assertThat(outcome.status()).isEqualTo(MemoryExtraction.Status.SKIPPED);
    assertThat(outcome.reason()).startsWith("coordination unavailable");
    assertThat(dreaming(down).tick()).isZero();
    clock.set(Instant.parse("2026-04-02T03:00:05Z"));
    assertThat(dreaming(down).tick()).isZero();
    assertThat(dreaming(down).nextRun(AGENT))
        .as("the same slot is tried at the next check")
        .contains(Instant.parse("2026-04-02T03:00:00Z"));

    RecordingCoordination local = RecordingCoordination.inProcess(clock);
    MemoryProvider single = host("single", local, Map.of());
    twoTurns(single, ALICE);
    extraction(single).run(AGENT, ALICE, "c1", false);
    dreaming(single).run(AGENT, null, "manual");
    assertThat(local.claims()).isEmpty();
    assertThat(local.locksTaken()).isEmpty();
    assertThat(local.cooldownsStarted()).isEmpty();
  }
}
