package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.SharedTestDatabase;
import dev.memstack.host.testing.TestHost;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fault test of shared mode as a whole: one host whose shared database (outbox, conversation log,
 * builtin workspace, vector store, coordination) is reached through a {@link CuttableTcpProxy}. The
 * proxy is cut for {@link #OUTAGE} (the database server keeps running) and restored. During the
 * cut, context calls answer 200 within the shipped context deadline plus a margin with the
 * providers on the database reported not ok, and new turns are refused with 503, {@code
 * Retry-After} and an error body, never accepted; afterwards turns are accepted again and every
 * turn accepted before and after the cut is delivered and recalled. Needs {@code MEMSTACK_PG_URL}
 * (skipped without it, failed on CI).
 */
class SharedModeOutageTest {

  static final Duration OUTAGE = Duration.ofSeconds(15);

  /** The shipped default of {@code memstack.stack.context.deadline}. */
  static final Duration DEADLINE = Duration.ofMillis(1500);

  /** Scheduling noise on a busy 2-core machine, on top of the deadline. */
  static final Duration MARGIN = Duration.ofMillis(1500);

  /** {@code memstack.shared.connect-timeout} in this test. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);

  /** Longest a refused turn may take: the pool's wait plus scheduling noise. */
  static final Duration REFUSAL = CONNECT_TIMEOUT.plusSeconds(3);

  static final String AGENT = "shared-outage-agent";
  static final String OWNER = "user:shared-outage";

  private static SharedTestDatabase database;
  private static CuttableTcpProxy proxy;
  private static TestHost host;
  private static HostClient api;

  @BeforeAll
  static void start() {
    database = SharedTestDatabase.create();
    SharedProperties properties = database.properties();
    URI target = URI.create(properties.jdbcUrl().substring("jdbc:".length()));
    proxy = new CuttableTcpProxy(target.getHost(), target.getPort() < 0 ? 5432 : target.getPort());
    String proxied =
        properties.jdbcUrl().replaceFirst("//[^/]+/", "//127.0.0.1:" + proxy.port() + "/");
    host =
        TestHost.withTestEmbedder("shared-outage")
            .with("memstack.shared.jdbc-url", proxied)
            .with("memstack.shared.connect-timeout", CONNECT_TIMEOUT.toMillis() + "ms")
            .with("memstack.providers.vector.config.schema", database.schema())
            // the shipped timings, not the kit's patient ones
            .with("memstack.stack.context.deadline", DEADLINE.toMillis() + "ms")
            .with("memstack.stack.context.provider-timeout", "1000ms")
            .with("memstack.stack.system-prompt.timeout", "1000ms")
            .with("memstack.stack.breaker.open-duration", "1s");
    if (properties.username() != null) {
      host.with("memstack.shared.username", properties.username());
    }
    if (properties.password() != null) {
      host.with("memstack.shared.password", properties.password());
    }
    host.start();
    api = host.client();
  }

  @AfterAll
  static void stop() {
    if (host != null) {
      host.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    if (database != null) {
      database.drop();
    }
  }

  @Test
  void whileTheSharedDatabaseIsDownContextAnswersInTimeAndTurnsAreRefusedNotLost()
      throws Exception {
    List<String> accepted = new ArrayList<>();

    // before the cut: accepted and recalled
    for (int i = 0; i < 3; i++) {
      String marker = marker("before" + i);
      turn(marker).expect(202);
      accepted.add(marker);
    }
    awaitDelivered();
    for (String marker : accepted) {
      assertRecalled(marker);
    }

    // the cut
    List<Answer> calls = new ArrayList<>();
    List<Answer> turns = new ArrayList<>();
    Map<String, Integer> statuses = new TreeMap<>();
    proxy.cut();
    long end = System.nanoTime() + OUTAGE.toNanos();
    int i = 0;
    while (System.nanoTime() < end) {
      turns.add(turn(marker("cut" + i++)));
      Answer context = api.context(AGENT, OWNER, "keep the marker", 10);
      calls.add(context);
      if (context.status() == 200) {
        for (String provider : List.of("builtin", "vector")) {
          statuses.merge(provider + ":" + context.statusOf(provider), 1, Integer::sum);
        }
      }
      Thread.sleep(300);
    }

    // restored: the first accepted turn, then a few more
    proxy.restore();
    long restored = System.nanoTime();
    Duration firstAccepted = null;
    List<Integer> whileReconnecting = new ArrayList<>();
    for (int k = 0; firstAccepted == null; k++) {
      assertThat(Duration.ofNanos(System.nanoTime() - restored))
          .as("a turn is accepted again after the restore")
          .isLessThan(Duration.ofSeconds(60));
      String marker = marker("after" + k);
      Answer answer = turn(marker);
      if (answer.status() == 202) {
        firstAccepted = Duration.ofNanos(System.nanoTime() - restored);
        accepted.add(marker);
      } else {
        whileReconnecting.add(answer.status());
        Thread.sleep(200);
      }
    }
    for (int k = 0; k < 3; k++) {
      String marker = marker("later" + k);
      turn(marker).expect(202);
      accepted.add(marker);
    }

    long slowestContext = calls.stream().mapToLong(a -> a.took().toMillis()).max().orElseThrow();
    long slowestRefusal = turns.stream().mapToLong(a -> a.took().toMillis()).max().orElseThrow();
    long medianRefusal =
        turns.stream()
            .mapToLong(a -> a.took().toMillis())
            .sorted()
            .skip(turns.size() / 2)
            .findFirst()
            .orElseThrow();
    System.out.printf(
        "SharedModeOutageTest: out %d s, %d context calls, slowest %d ms (deadline %d ms), "
            + "%s; %d turns refused, slowest %d ms, median %d ms (connect-timeout %d ms); "
            + "first 202 after restore in %d ms (answers before it %s)%n",
        OUTAGE.toSeconds(),
        calls.size(),
        slowestContext,
        DEADLINE.toMillis(),
        statuses,
        turns.size(),
        slowestRefusal,
        medianRefusal,
        CONNECT_TIMEOUT.toMillis(),
        firstAccepted.toMillis(),
        whileReconnecting);

    for (Answer call : calls) {
      assertThat(call.status()).as(call.toString()).isEqualTo(200);
      assertThat(call.took()).as(call.toString()).isLessThanOrEqualTo(DEADLINE.plus(MARGIN));
      assertThat(call.statusOf("vector"))
          .as("vector on the unreachable database, in %s", call)
          .isNotEqualTo("ok");
    }
    for (Answer turn : turns) {
      assertThat(turn.status()).as("a turn during the cut: %s", turn).isEqualTo(503);
      assertThat(turn.headers().firstValue("Retry-After")).as(turn.toString()).isPresent();
      assertThat(turn.json()).as("an error body: %s", turn).isNotNull();
      assertThat(turn.error()).as("an error body: %s", turn).isNotBlank();
      assertThat(turn.took()).as(turn.toString()).isLessThanOrEqualTo(REFUSAL);
    }
    assertThat(whileReconnecting).as("answers while the pool reconnects").allMatch(s -> s == 503);

    awaitDelivered();
    for (String marker : accepted) {
      assertRecalled(marker);
    }
  }

  private static String marker(String phase) {
    return phase + "marker" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
  }

  private static Answer turn(String marker) {
    return api.turn(AGENT, OWNER, "t-" + marker, "Please keep " + marker, "Kept.");
  }

  private static void awaitDelivered() {
    await("the outbox drained")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> api.pending() == 0);
  }

  private static void assertRecalled(String marker) {
    await("recall of " + marker)
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () ->
                assertThat(api.context(AGENT, OWNER, marker, 10).expect(200).recall())
                    .as("recall of %s", marker)
                    .anyMatch(item -> item.path("text").asString().contains(marker)));
  }
}
