package dev.memstack.host.outbox;

import static dev.memstack.host.outbox.Turns.eventually;
import static dev.memstack.host.outbox.Turns.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.host.api.OutboxController;
import dev.memstack.host.metrics.HostMetrics;
import dev.memstack.host.shared.SharedStore;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.OwnerErasure;
import dev.memstack.outbox.ProviderErasure;
import dev.memstack.outbox.ProviderPolicy;
import dev.memstack.outbox.TurnOutboxFullException;
import dev.memstack.outbox.postgres.PostgresJournal;
import dev.memstack.spi.OwnerKey;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.health.contributor.Health;

/**
 * Required and optional providers, on a local journal (file and memory) and on the shared
 * PostgreSQL one: an optional provider that is down never makes turns be refused, keeps its newest
 * {@code max-backlog} turns (the oldest are dropped and counted, its erasures among them kept) and
 * gets them in order when it returns; a required provider still refuses turns past {@code
 * max-pending}; an erasure answers at once for a provider that is not running.
 */
class OptionalProviderOutboxTest {

  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final int MAX_PENDING = 3;
  private static final int MAX_BACKLOG = 5;
  private static final Duration ERASE_WAIT = Duration.ofSeconds(10);

  /** {@code opt} is optional with a backlog of {@value #MAX_BACKLOG}; {@code req} is required. */
  private static final Map<String, ProviderPolicy> POLICIES =
      Map.of("opt", ProviderPolicy.optional(MAX_BACKLOG), "req", ProviderPolicy.REQUIRED);

  @TempDir Path dir;

  private final List<OutboxEngine> engines = new ArrayList<>();
  private final List<SharedStore> stores = new ArrayList<>();
  private SharedOutboxDatabase database;

  @AfterEach
  void closeAll() {
    engines.forEach(OutboxEngine::close);
    stores.forEach(SharedStore::close);
    if (database != null) {
      database.close();
    }
  }

  private static OutboxSettings settings() {
    return settings(MAX_PENDING);
  }

  private static OutboxSettings settings(int maxPending) {
    return OutboxSettingsBuilder.from(Turns.fastRetry(OutboxSettings.defaults()))
        .maxPending(maxPending)
        .eraseWait(ERASE_WAIT)
        .shards(4)
        .leaseTtl(Duration.ofSeconds(2))
        .build();
  }

  private OutboxEngine local(String type, TestMembers members) {
    StackDeliveryPort port = new StackDeliveryPort(members, Turns.calls(), POLICIES);
    OutboxEngine engine =
        "journal".equals(type)
            ? OutboxEngine.onDisk(dir, settings(), port)
            : OutboxEngine.inMemory(settings(), port);
    engines.add(engine);
    return engine;
  }

  private OutboxEngine shared(TestMembers members) {
    return shared(members, settings());
  }

  private OutboxEngine shared(TestMembers members, OutboxSettings settings) {
    if (database == null) {
      database = SharedOutboxDatabase.create();
    }
    SharedStore store = database.store();
    stores.add(store);
    OutboxEngine engine =
        OutboxEngine.start(
            PostgresJournal.open(store, settings.shards(), settings.leaseTtl()),
            settings,
            new StackDeliveryPort(members, Turns.calls(), POLICIES));
    engines.add(engine);
    return engine;
  }

  private static List<String> ids(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> "t" + i).toList();
  }

  /**
   * Twelve turns of one owner for {@code opt} while it is down, with an erasure of another owner
   * after the fourth: none is refused although {@code max-pending} is 3.
   */
  private static void fillWhileDown(OutboxEngine engine) {
    for (String id : ids(0, 12)) {
      engine.enqueue(turn(id, "user:1"), List.of("opt"));
      if (id.equals("t3")) {
        engine.erase(OwnerKey.of("user:9"));
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void anOptionalProviderThatIsDownKeepsItsNewestTurnsAndGetsThemInOrder(String type) {
    TestMembers members = new TestMembers();
    RecordingProvider req = RecordingProvider.down("req");
    members.run(req).run(new RecordingProvider("opt")).stop("opt");
    OutboxEngine engine = local(type, members);

    fillWhileDown(engine);

    // a turn in a delivery attempt at that moment is dropped by the next pass
    eventually(
        PATIENCE,
        () -> {
          engine.maintain();
          assertThat(engine.droppedTurns("opt")).isEqualTo(12 - MAX_BACKLOG);
          assertThat(backlog(engine, "opt").pendingTurns()).isEqualTo(MAX_BACKLOG);
        });
    for (String id : ids(100, 100 + MAX_PENDING)) {
      engine.enqueue(turn(id, "user:2"), List.of("req", "opt"));
    }
    assertThatThrownBy(() -> engine.enqueue(turn("t-refused", "user:2"), List.of("req", "opt")))
        .as("the required provider still holds turns back")
        .isInstanceOf(TurnOutboxFullException.class)
        .hasMessageContaining("provider req");
    engine.enqueue(turn("t-only-opt", "user:2"), List.of("opt"));
    eventually(
        PATIENCE,
        () -> {
          engine.maintain();
          assertThat(engine.droppedTurns("opt")).isEqualTo(12 + MAX_PENDING + 1 - MAX_BACKLOG);
        });

    assertReported(engine, members, 12 + MAX_PENDING + 1 - MAX_BACKLOG);

    RecordingProvider opt = new RecordingProvider("opt");
    members.run(opt);
    List<String> kept = List.of("t11", "t100", "t101", "t102", "t-only-opt");
    eventually(PATIENCE, () -> assertThat(opt.storedIds()).containsExactlyElementsOf(kept));
    assertThat(opt.events).first().isEqualTo("forget:user:9");
    assertThat(opt.received).doesNotContainAnyElementsOf(ids(0, 11));
    eventually(PATIENCE, () -> assertThat(backlog(engine, "opt").stats().pending()).isZero());
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void anErasureAnswersAtOnceForAProviderThatIsNotRunning(String type) {
    TestMembers members = new TestMembers();
    RecordingProvider req = new RecordingProvider("req");
    members.run(req).run(new RecordingProvider("opt")).stop("opt");
    OutboxEngine engine = local(type, members);
    engine.enqueue(turn("t1", "user:1"), List.of("req"));
    eventually(PATIENCE, () -> assertThat(req.storedIds()).containsExactly("t1"));

    long started = System.nanoTime();
    OwnerErasure erasure = engine.erase(OwnerKey.of("user:1"));

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    assertThat(erasure.providers())
        .extracting(ProviderErasure::id, ProviderErasure::outcome, ProviderErasure::removed)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("req", ProviderErasure.ERASED, 1L),
            org.assertj.core.groups.Tuple.tuple("opt", ProviderErasure.QUEUED, 0L));
  }

  @Test
  void overTheSharedJournalAnOptionalProviderThatIsDownKeepsItsNewestTurns() {
    TestMembers oneMembers = new TestMembers();
    TestMembers twoMembers = new TestMembers();
    RecordingProvider req = RecordingProvider.down("req");
    oneMembers.run(req).run(new RecordingProvider("opt")).stop("opt");
    twoMembers.run(new RecordingProvider("opt")).stop("opt");
    OutboxEngine one = shared(oneMembers);
    OutboxEngine two = shared(twoMembers);

    fillWhileDown(one);

    eventually(
        PATIENCE,
        () -> {
          assertThat(one.droppedTurns("opt") + two.droppedTurns("opt")).isEqualTo(12 - MAX_BACKLOG);
          assertThat(backlog(one, "opt").pendingTurns()).isEqualTo(MAX_BACKLOG);
        });
    for (String id : ids(100, 100 + MAX_PENDING)) {
      one.enqueue(turn(id, "user:2"), List.of("req", "opt"));
    }
    assertThatThrownBy(() -> one.enqueue(turn("t-refused", "user:2"), List.of("req", "opt")))
        .as("the required provider still holds turns back")
        .isInstanceOf(TurnOutboxFullException.class)
        .hasMessageContaining("provider req");
    one.enqueue(turn("t-only-opt", "user:1"), List.of("opt"));
    eventually(
        PATIENCE,
        () ->
            assertThat(one.droppedTurns("opt") + two.droppedTurns("opt"))
                .isEqualTo(12 + MAX_PENDING + 1 - MAX_BACKLOG));

    RecordingProvider opt = new RecordingProvider("opt");
    oneMembers.run(opt);
    twoMembers.run(opt);
    // user:1's kept turns in their order (user:2's may be in another shard)
    eventually(
        PATIENCE,
        () ->
            assertThat(opt.stored)
                .filteredOn(t -> t.owner().value().equals("user:1"))
                .extracting(t -> t.turnId())
                .containsExactly("t11", "t-only-opt"));
    eventually(PATIENCE, () -> assertThat(opt.storedIds()).hasSize(MAX_BACKLOG));
    assertThat(opt.events).contains("forget:user:9");
    assertThat(opt.received).doesNotContainAnyElementsOf(ids(0, 11));
  }

  @Test
  void overTheSharedJournalAnErasureAnswersAtOnceForAProviderNotRunningHere() {
    TestMembers oneMembers = new TestMembers();
    TestMembers twoMembers = new TestMembers();
    RecordingProvider req = new RecordingProvider("req");
    oneMembers.run(req).run(new RecordingProvider("opt")).stop("opt");
    twoMembers.run(req).run(new RecordingProvider("opt")).stop("opt");
    OutboxEngine one = shared(oneMembers, settings(100));
    OutboxEngine two = shared(twoMembers, settings(100));
    for (int i = 0; i < 8; i++) {
      (i % 2 == 0 ? one : two).enqueue(turn("t" + i, "user:" + i), List.of("req", "opt"));
    }
    eventually(PATIENCE, () -> assertThat(req.storedIds()).hasSize(8));

    for (int i = 0; i < 8; i++) {
      long started = System.nanoTime();
      OwnerErasure erasure = (i % 2 == 0 ? two : one).erase(OwnerKey.of("user:" + i));

      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("an erasure with erase-wait %s", ERASE_WAIT)
          .isLessThan(Duration.ofSeconds(5));
      assertThat(erasure.providers())
          .filteredOn(p -> p.id().equals("opt"))
          .singleElement()
          .satisfies(
              p -> {
                assertThat(p.outcome()).isEqualTo(ProviderErasure.QUEUED);
                assertThat(p.detail()).contains("not running");
              });
    }
    eventually(PATIENCE, () -> assertThat(req.storedIds()).isEmpty());
  }

  /** The outbox route, the health details and the metrics show the policies and the drops. */
  @SuppressWarnings("unchecked")
  private static void assertReported(OutboxEngine engine, TestMembers members, long dropped) {
    OutboxController.OutboxView view = new OutboxController(engine).outbox();
    assertThat(view.providers())
        .filteredOn(p -> p.id().equals("opt"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.optional()).isTrue();
              assertThat(p.maxBacklog()).isEqualTo(MAX_BACKLOG);
              assertThat(p.droppedTurns()).isEqualTo(dropped);
              assertThat(p.pendingTurns()).isEqualTo(MAX_BACKLOG);
            });
    assertThat(view.providers())
        .filteredOn(p -> p.id().equals("req"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.optional()).isFalse();
              assertThat(p.maxBacklog()).isNull();
              assertThat(p.droppedTurns()).isZero();
            });
    Health health = new OutboxHealthIndicator(engine, members, Duration.ofMinutes(1)).health();
    Map<String, Object> opt =
        ((Map<String, Map<String, Object>>) health.getDetails().get("providers")).get("opt");
    assertThat(opt)
        .containsEntry("optional", true)
        .containsEntry("maxBacklog", MAX_BACKLOG)
        .containsEntry("droppedTurns", dropped);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    new HostMetrics(List.of("opt", "req"), engine, Map::of).bindTo(registry);
    assertThat(
            registry
                .get(HostMetrics.OUTBOX_DROPPED)
                .tag("provider", "opt")
                .functionCounter()
                .count())
        .isEqualTo((double) dropped);
    assertThat(
            registry
                .get(HostMetrics.OUTBOX_DROPPED)
                .tag("provider", "req")
                .functionCounter()
                .count())
        .isZero();
  }

  private static OutboxEngine.Backlog backlog(OutboxEngine engine, String id) {
    return engine.backlog().stream().filter(b -> b.id().equals(id)).findFirst().orElseThrow();
  }
}
