package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Fault test for the pgvector store: a vector instance ({@code vector-pg}) reaches PostgreSQL
 * through a {@link CuttableTcpProxy}; the proxy is cut for {@link #OUTAGE} (the shared database
 * server keeps running) and restored. Throughout, context calls answer within the deadline plus a
 * margin and turns are accepted; afterwards every turn accepted during the cut is recalled from
 * {@code vector-pg}. Needs {@code MEMSTACK_PG_URL} (skipped without it, failed on CI).
 */
class PostgresOutageTest {

  static final Duration OUTAGE = Duration.ofSeconds(20);
  static final String AGENT = "pg-outage-agent";
  static final String OWNER = "user:pg-outage";

  @AutoClose private static CuttableTcpProxy proxy;
  @AutoClose private static TestHost host;
  private static HostClient api;

  @BeforeAll
  static void start() {
    String url = System.getenv("MEMSTACK_PG_URL");
    if (url == null || url.isBlank()) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail(
            "MEMSTACK_PG_URL is not set on CI (CI=true): run eval \"$(scripts/pgvector-setup.sh)\"");
      }
      Assumptions.abort("MEMSTACK_PG_URL is not set; skipping the PostgreSQL outage test");
    }
    URI target = URI.create(url.substring("jdbc:".length()));
    proxy = new CuttableTcpProxy(target.getHost(), target.getPort() < 0 ? 5432 : target.getPort());
    String proxied = url.replaceFirst("//[^/]+/", "//127.0.0.1:" + proxy.port() + "/");
    host =
        TestHost.withTestEmbedder("pg-outage")
            .withPgVector(proxied, "proof_pg_outage_" + Long.toHexString(System.nanoTime()))
            .withOutageTimings(OutageLog.DEADLINE);
    host.start();
    api = host.client();
  }

  @Test
  void whilePostgresIsUnreachableContextCallsAnswerInTimeAndTurnsArriveAfterwards()
      throws Exception {
    OutageLog log = new OutageLog(api, AGENT, OWNER, "vector-pg");
    List<String> phrases = log.phrases;

    proxy.cut();
    log.turnsAndCalls(OUTAGE, "cut", "pg-");
    proxy.restore();

    log.assertEveryCallAnsweredInTime("PostgresOutageTest", OUTAGE);
    assertThat(log.statuses.keySet())
        .as("PostgreSQL was really unreachable")
        .anyMatch(k -> !k.equals("cut:ok"));

    await("the outbox drained into vector-pg")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> api.pending() == 0);
    // what vector-pg stored for the owner (recall ranking aside): its list tool, newest first
    ObjectNode args = HostClient.JSON.createObjectNode();
    args.put("ownerKey", OWNER);
    args.put("limit", 100);
    Answer stored = api.tool(AGENT, "vector-pg", "list_memories", args).expect(200);
    List<String> missing = phrases.stream().filter(p -> !stored.body().contains(p)).toList();
    assertThat(missing).as("turns accepted during the cut, not recalled from vector-pg").isEmpty();
  }
}
