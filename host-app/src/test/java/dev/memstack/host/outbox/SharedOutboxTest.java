package dev.memstack.host.outbox;

import static dev.memstack.host.outbox.Turns.eventually;
import static dev.memstack.host.outbox.Turns.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.OwnerErasure;
import dev.memstack.outbox.ProviderErasure;
import dev.memstack.outbox.TurnOutboxFullException;
import dev.memstack.outbox.postgres.PostgresJournal;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two hosts (two engines, each with its own stack and providers and its own pool) on one shared
 * outbox: every turn reaches every provider, in order per owner, whichever host accepted it and
 * whichever delivered it; the lanes split across the hosts; a host that dies mid-stream (its pool
 * closed, nothing given up) loses its lanes to the other, which resumes from the saved cursors; an
 * erasure through one host removes the owner's rows. A provider here is one backend shared by the
 * hosts ({@link Backend}), as a real one is (a database, a Mem0 server), and stores a turn once by
 * its id.
 */
class SharedOutboxTest {

  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final int SHARDS = 8;

  private final SharedOutboxDatabase database = SharedOutboxDatabase.create();
  private final List<SharedStore> stores = new ArrayList<>();
  private final List<OutboxEngine> engines = new ArrayList<>();

  @AfterEach
  void closeAll() {
    engines.forEach(OutboxEngine::close);
    stores.forEach(SharedStore::close);
    database.close();
  }

  /** What one provider's backend saw: every delivery (host, owner, turn) in the order it came. */
  static final class Backend {
    final List<String> deliveries = Collections.synchronizedList(new ArrayList<>());
    final List<String> forgotten = Collections.synchronizedList(new ArrayList<>());

    /** Turn ids in the order first stored, per owner. */
    Map<String, List<String>> storedByOwner() {
      Map<String, List<String>> byOwner = new LinkedHashMap<>();
      Set<String> seen = new HashSet<>();
      synchronized (deliveries) {
        for (String delivery : deliveries) {
          String[] parts = delivery.split("\\|");
          if (seen.add(parts[1] + "|" + parts[2])) {
            byOwner.computeIfAbsent(parts[1], o -> new ArrayList<>()).add(parts[2]);
          }
        }
      }
      return byOwner;
    }

    int stored() {
      return storedByOwner().values().stream().mapToInt(List::size).sum();
    }

    /** The deliveries of turns delivered more than once. */
    List<String> repeated() {
      Map<String, Integer> times = new LinkedHashMap<>();
      synchronized (deliveries) {
        deliveries.forEach(d -> times.merge(d.substring(d.indexOf('|') + 1), 1, Integer::sum));
        return deliveries.stream()
            .filter(d -> times.get(d.substring(d.indexOf('|') + 1)) > 1)
            .toList();
      }
    }

    /** Deliveries of a turn that was stored already. */
    int duplicates() {
      return deliveries.size() - stored();
    }

    Set<String> hosts() {
      Set<String> hosts = new HashSet<>();
      synchronized (deliveries) {
        deliveries.forEach(d -> hosts.add(d.split("\\|")[0]));
      }
      return hosts;
    }
  }

  /** One host's instance of a provider, writing to the backend the hosts share. */
  static final class HostProvider extends RecordingProvider {
    private final String host;
    private final Backend backend;

    HostProvider(String id, String host, Backend backend) {
      super(id);
      this.host = host;
      this.backend = backend;
      this.batches = true;
    }

    @Override
    public synchronized void syncTurn(Turn turn) {
      super.syncTurn(turn);
      backend.deliveries.add(host + "|" + turn.owner().value() + "|" + turn.turnId());
    }

    @Override
    public synchronized long forget(OwnerKey owner) {
      long removed = super.forget(owner);
      backend.forgotten.add(host + "|" + owner.value());
      return removed;
    }
  }

  /** One host: its engine, its stack and its pool. */
  record Host(String name, OutboxEngine engine, TestMembers members, SharedStore store) {
    String id() {
      return engine.sharedState().orElseThrow().host();
    }

    long lanesHeld() {
      return engine.sharedState().orElseThrow().holders().values().stream()
          .filter(id()::equals)
          .count();
    }
  }

  private Host host(String name, Map<String, Backend> backends, long delayMillis) {
    return host(name, backends, delayMillis, settings -> settings);
  }

  private Host host(
      String name,
      Map<String, Backend> backends,
      long delayMillis,
      java.util.function.UnaryOperator<OutboxSettings> tune) {
    TestMembers members = new TestMembers();
    backends.forEach(
        (id, backend) -> {
          HostProvider provider = new HostProvider(id, name, backend);
          provider.delayMillis = delayMillis;
          members.run(provider);
        });
    SharedStore store = database.store();
    stores.add(store);
    OutboxSettings settings =
        OutboxSettingsBuilder.from(Turns.fastRetry(OutboxSettings.defaults()))
            .shards(SHARDS)
            .leaseTtl(Duration.ofSeconds(2))
            .deliveryBatch(8)
            .eraseWait(Duration.ofSeconds(5))
            .build();
    settings = tune.apply(settings);
    OutboxEngine engine =
        OutboxEngine.start(
            PostgresJournal.open(store, settings.shards(), settings.leaseTtl()),
            settings,
            Turns.port(members));
    engines.add(engine);
    return new Host(name, engine, members, store);
  }

  private static Map<String, Backend> backends(String... ids) {
    Map<String, Backend> backends = new LinkedHashMap<>();
    for (String id : ids) {
      backends.put(id, new Backend());
    }
    return backends;
  }

  /**
   * Enqueues {@code perThread} turns from each of {@code threads} threads, alternately on the
   * hosts; each thread has owners of its own, so the order per owner is the order of its enqueues.
   */
  private static Map<String, List<String>> enqueue(
      List<Host> hosts, int threads, int perThread, List<String> providers, Runnable midway)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<Map<String, List<String>>>> results = new ArrayList<>();
    java.util.concurrent.atomic.AtomicInteger sent =
        new java.util.concurrent.atomic.AtomicInteger();
    int total = threads * perThread;
    for (int t = 0; t < threads; t++) {
      int thread = t;
      results.add(
          pool.submit(
              () -> {
                Map<String, List<String>> expected = new LinkedHashMap<>();
                for (int i = 0; i < perThread; i++) {
                  String owner = "user:t" + thread + "-" + (i % 5);
                  String id = "t" + thread + "-" + i;
                  Host host = hosts.get((thread + i) % hosts.size());
                  host.engine().enqueue(turn(id, owner), providers);
                  expected.computeIfAbsent(owner, o -> new ArrayList<>()).add(id);
                  if (sent.incrementAndGet() == total / 2 && midway != null) {
                    midway.run();
                  }
                }
                return expected;
              }));
    }
    Map<String, List<String>> expected = new LinkedHashMap<>();
    for (Future<Map<String, List<String>>> result : results) {
      expected.putAll(result.get());
    }
    pool.shutdown();
    return expected;
  }

  @Test
  void turnsFromTwoHostsReachEveryProviderOnceInOrderPerOwnerAndTheLanesSplit() throws Exception {
    Map<String, Backend> backends = backends("a", "b");
    Host one = host("one", backends, 0);
    Host two = host("two", backends, 0);
    eventually(
        PATIENCE,
        () -> {
          assertThat(one.lanesHeld()).as("lanes of host one").isEqualTo(SHARDS);
          assertThat(two.lanesHeld()).as("lanes of host two").isEqualTo(SHARDS);
        });

    Map<String, List<String>> expected = enqueue(List.of(one, two), 4, 60, List.of("a", "b"), null);

    for (Backend backend : backends.values()) {
      eventually(PATIENCE, () -> assertThat(backend.stored()).isEqualTo(240));
      assertThat(backend.storedByOwner()).isEqualTo(expected);
      assertThat(backend.duplicates()).isZero();
      assertThat(backend.hosts()).containsExactlyInAnyOrder("one", "two");
    }
    eventually(
        PATIENCE,
        () ->
            assertThat(one.engine().backlog())
                .allSatisfy(b -> assertThat(b.stats().pending()).isZero()));
    long delivered =
        one.engine().backlog().stream().mapToLong(b -> b.stats().delivered()).sum()
            + two.engine().backlog().stream().mapToLong(b -> b.stats().delivered()).sum();
    assertThat(delivered).isEqualTo(480);
    assertThat(one.engine().journalStats().type()).isEqualTo("postgres");
    eventually(
        PATIENCE,
        () ->
            assertThat(database.count("SELECT count(*) FROM memstack_outbox_record"))
                .as("delivered records are freed")
                .isZero());
  }

  @Test
  void aTurnAcceptedByOneHostIsDeliveredByTheOtherWithinAFractionOfASecond() throws Exception {
    Map<String, Backend> backends = backends("a");
    Host one = host("one", backends, 0);
    Host two = host("two", backends, 0);
    eventually(PATIENCE, () -> assertThat(one.lanesHeld()).isEqualTo(SHARDS / 2));
    eventually(PATIENCE, () -> assertThat(two.lanesHeld()).isEqualTo(SHARDS / 2));
    Backend backend = backends.get("a");
    List<Long> millis = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      long start = System.nanoTime();
      int before = backend.stored();
      one.engine().enqueue(turn("l" + i, "user:l" + i), List.of("a"));
      while (backend.stored() == before) {
        assertThat(System.nanoTime() - start).isLessThan(PATIENCE.toNanos());
        Thread.sleep(1);
      }
      millis.add((System.nanoTime() - start) / 1_000_000);
    }
    Collections.sort(millis);
    System.out.printf(
        "shared outbox: enqueue to delivery p50 %d ms, p90 %d ms, max %d ms (40 turns)%n",
        millis.get(20), millis.get(36), millis.get(39));
    assertThat(backend.hosts()).containsExactlyInAnyOrder("one", "two");
    assertThat(millis.get(20)).as("median latency (ms)").isLessThan(500);
  }

  @Test
  void whenAHostDiesMidStreamTheOtherTakesItsLanesAndEveryTurnIsDelivered() throws Exception {
    Map<String, Backend> backends = backends("a");
    Host one = host("one", backends, 3);
    Host two = host("two", backends, 3);
    eventually(
        PATIENCE,
        () -> {
          assertThat(one.lanesHeld()).isEqualTo(SHARDS / 2);
          assertThat(two.lanesHeld()).isEqualTo(SHARDS / 2);
        });
    long[] killedAt = new long[1];
    Runnable kill =
        () -> {
          // dies: its connections drop, it gives nothing up and saves no cursor
          two.members().stop("a");
          two.store().close();
          killedAt[0] = System.nanoTime();
        };

    Map<String, List<String>> expected = enqueueSurvivingTheDeath(one, two, kill);

    eventually(PATIENCE, () -> assertThat(one.lanesHeld()).isEqualTo(SHARDS));
    long failoverMillis = (System.nanoTime() - killedAt[0]) / 1_000_000;
    Backend backend = backends.get("a");
    int total = expected.values().stream().mapToInt(List::size).sum();
    eventually(PATIENCE, () -> assertThat(backend.stored()).isEqualTo(total));
    assertThat(backend.storedByOwner()).isEqualTo(expected);
    long redelivered = one.engine().backlog().get(0).redelivered();
    System.out.printf(
        "shared outbox failover: the surviving host held every lane %d ms after the other died;"
            + " %d duplicate deliveries, %d counted as redeliveries%n",
        failoverMillis, backend.duplicates(), redelivered);
    assertThat(failoverMillis).isLessThan(15_000);
    assertThat(redelivered)
        .as("%s", backend.repeated())
        .isGreaterThanOrEqualTo(backend.duplicates());
    assertThat(backend.hosts()).contains("one", "two");
  }

  /**
   * Enqueues turns alternately on both hosts from two threads; halfway, {@code kill} runs, and a
   * turn refused by the dead host (fast, within its pool's connect timeout) goes to the living one.
   */
  private static Map<String, List<String>> enqueueSurvivingTheDeath(
      Host one, Host two, Runnable kill) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    java.util.concurrent.atomic.AtomicInteger sent =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicLong slowestRefusal =
        new java.util.concurrent.atomic.AtomicLong();
    List<Future<Map<String, List<String>>>> results = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      int thread = t;
      results.add(
          pool.submit(
              () -> {
                Map<String, List<String>> expected = new LinkedHashMap<>();
                for (int i = 0; i < 150; i++) {
                  String owner = "user:d" + thread + "-" + (i % 4);
                  String id = "d" + thread + "-" + i;
                  Host host = (thread + i) % 2 == 0 ? one : two;
                  long start = System.nanoTime();
                  try {
                    host.engine().enqueue(turn(id, owner), List.of("a"));
                  } catch (TurnOutboxFullException refused) {
                    slowestRefusal.accumulateAndGet(System.nanoTime() - start, Math::max);
                    one.engine().enqueue(turn(id, owner), List.of("a"));
                  }
                  expected.computeIfAbsent(owner, o -> new ArrayList<>()).add(id);
                  if (sent.incrementAndGet() == 150) {
                    kill.run();
                  }
                }
                return expected;
              }));
    }
    Map<String, List<String>> expected = new LinkedHashMap<>();
    for (Future<Map<String, List<String>>> result : results) {
      expected.putAll(result.get());
    }
    pool.shutdown();
    assertThat(slowestRefusal.get())
        .as("a dead database refuses a turn within the pool's connect timeout")
        .isLessThan(Duration.ofSeconds(5).toNanos());
    assertThatThrownBy(() -> two.engine().enqueue(turn("late", "user:late"), List.of("a")))
        .isInstanceOf(TurnOutboxFullException.class);
    assertThat(two.engine().refusal())
        .as("a host that cannot reach the database is out of routing")
        .hasValueSatisfying(why -> assertThat(why).contains("failed"));
    assertThat(
            new OutboxHealthIndicator(two.engine(), two.members(), Duration.ofMinutes(1))
                .health()
                .getStatus())
        .isEqualTo(org.springframework.boot.health.contributor.Status.DOWN);
    return expected;
  }

  @Test
  void anErasureThroughOneHostRemovesTheOwnersRowsAndReachesEveryProvider() throws Exception {
    Map<String, Backend> backends = backends("a", "b");
    Host one = host("one", backends, 0);
    Host two = host("two", backends, 0);
    eventually(PATIENCE, () -> assertThat(two.lanesHeld()).isEqualTo(SHARDS));
    // provider b is down on both hosts, so the owner's turns wait for it
    for (Host host : List.of(one, two)) {
      host.members().enabled().stream()
          .filter(m -> m.id().equals("b"))
          .forEach(m -> ((RecordingProvider) m.provider()).failing = true);
    }
    String secret = "secret-" + java.util.UUID.randomUUID();
    for (int i = 0; i < 10; i++) {
      Host host = i % 2 == 0 ? one : two;
      host.engine().enqueue(turn(secret + "-" + i, "user:gone"), List.of("a", "b"));
      host.engine().enqueue(turn("kept-" + i, "user:kept"), List.of("a", "b"));
    }
    eventually(PATIENCE, () -> assertThat(backends.get("a").stored()).isEqualTo(20));

    OwnerErasure erasure = one.engine().erase(OwnerKey.of("user:gone"));

    Map<String, ProviderErasure> outcomes = new LinkedHashMap<>();
    erasure.providers().forEach(p -> outcomes.put(p.id(), p));
    assertThat(outcomes.get("a").outcome()).isEqualTo(ProviderErasure.ERASED);
    assertThat(outcomes.get("b").outcome()).isIn(ProviderErasure.QUEUED, ProviderErasure.ERROR);
    assertThat(outcomes.get("b").droppedPending()).isEqualTo(10);
    assertThat(
            database.count(
                "SELECT count(*) FROM memstack_outbox_record WHERE owner = 'user:gone' AND kind = 1"))
        .isZero();
    assertThat(new String(database.bodies(), StandardCharsets.ISO_8859_1)).doesNotContain(secret);
    eventually(PATIENCE, () -> assertThat(backends.get("a").forgotten).isNotEmpty());

    for (Host host : List.of(one, two)) {
      host.members().enabled().stream()
          .filter(m -> m.id().equals("b"))
          .forEach(m -> ((RecordingProvider) m.provider()).failing = false);
    }
    Backend b = backends.get("b");
    eventually(PATIENCE, () -> assertThat(b.forgotten).isNotEmpty());
    eventually(PATIENCE, () -> assertThat(b.storedByOwner().get("user:kept")).hasSize(10));
    assertThat(b.storedByOwner()).doesNotContainKey("user:gone");
  }

  @Test
  void maxPendingCountsTheTurnsWaitingOnEveryHost() throws Exception {
    Map<String, Backend> backends = backends("a");
    Host one =
        host(
            "one",
            backends,
            0,
            settings -> OutboxSettingsBuilder.from(settings).maxPending(6).build());
    Host two =
        host(
            "two",
            backends,
            0,
            settings -> OutboxSettingsBuilder.from(settings).maxPending(6).build());
    for (Host host : List.of(one, two)) {
      host.members().enabled().forEach(m -> ((RecordingProvider) m.provider()).failing = true);
    }
    for (int i = 0; i < 3; i++) {
      one.engine().enqueue(turn("p" + i, "user:p" + i), List.of("a"));
    }
    assertThatThrownBy(
            () -> {
              for (int i = 3; i < 7; i++) {
                one.engine().enqueue(turn("p" + i, "user:p" + i), List.of("a"));
              }
            })
        .as("a burst on one host stops at max-pending")
        .isInstanceOf(TurnOutboxFullException.class);
    for (Host host : List.of(one, two)) {
      eventually(
          PATIENCE,
          () ->
              assertThat(host.engine().backlog())
                  .singleElement()
                  .satisfies(b -> assertThat(b.pendingTurns()).isEqualTo(6)));
    }

    assertThatThrownBy(() -> two.engine().enqueue(turn("p-more", "user:p-more"), List.of("a")))
        .as("the other host counts them too")
        .isInstanceOf(TurnOutboxFullException.class)
        .hasMessageContaining("provider a")
        .hasMessageContaining("6 turns waiting");
    for (Host host : List.of(one, two)) {
      host.members().enabled().forEach(m -> ((RecordingProvider) m.provider()).failing = false);
    }
    eventually(PATIENCE, () -> assertThat(backends.get("a").stored()).isEqualTo(6));
    eventually(
        PATIENCE,
        () ->
            assertThat(two.engine().backlog())
                .singleElement()
                .satisfies(b -> assertThat(b.pendingTurns()).isZero()));
    two.engine().enqueue(turn("p-later", "user:p-later"), List.of("a"));
    eventually(PATIENCE, () -> assertThat(backends.get("a").stored()).isEqualTo(7));
  }

  @Test
  void theOutboxRouteAndHealthShowTheSharedBacklogAndWhoHoldsWhichLane() {
    Map<String, Backend> backends = backends("a");
    Host one = host("one", backends, 0);
    Host two = host("two", backends, 0);
    eventually(
        PATIENCE,
        () -> {
          assertThat(one.lanesHeld()).isEqualTo(SHARDS / 2);
          assertThat(two.lanesHeld()).isEqualTo(SHARDS / 2);
        });
    two.engine().enqueue(turn("v1", "user:v"), List.of("a"));
    eventually(PATIENCE, () -> assertThat(backends.get("a").stored()).isEqualTo(1));

    dev.memstack.host.api.OutboxController.OutboxView view =
        new dev.memstack.host.api.OutboxController(one.engine()).outbox();
    assertThat(view.type()).isEqualTo("postgres");
    assertThat(view.shared().host()).isEqualTo(one.id());
    assertThat(view.shared().liveHosts()).isEqualTo(2);
    assertThat(view.shared().leases()).hasSize(SHARDS);
    assertThat(view.shared().leases().values()).containsOnly(one.id(), two.id());
    assertThat(view.providers())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.id()).isEqualTo("a");
              assertThat(p.redelivered()).isZero();
            });
    org.springframework.boot.health.contributor.Health health =
        new OutboxHealthIndicator(one.engine(), one.members(), Duration.ofMinutes(1)).health();
    assertThat(health.getStatus()).isEqualTo(org.springframework.boot.health.contributor.Status.UP);
    @SuppressWarnings("unchecked")
    Map<String, Object> shared = (Map<String, Object>) health.getDetails().get("shared");
    assertThat(shared).containsEntry("liveHosts", 2);
    @SuppressWarnings("unchecked")
    Map<String, Integer> lanesByHost = (Map<String, Integer>) shared.get("lanesByHost");
    assertThat(lanesByHost).containsEntry(one.id(), SHARDS / 2).containsEntry(two.id(), SHARDS / 2);
  }
}
