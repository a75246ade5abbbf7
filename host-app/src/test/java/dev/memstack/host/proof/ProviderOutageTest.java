package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault test: the Mem0 server (a storing fake) goes away for {@link #OUTAGE} and comes back on the
 * same port. Throughout, a client keeps making context calls (each one timed) and handing in turns:
 * every context call answers 200 within the stack's deadline plus a margin, every turn is accepted,
 * and once the server is back every turn accepted meanwhile reaches it (and builtin and vector), so
 * nothing is lost.
 */
class ProviderOutageTest {

  /** How long the Mem0 server is down (the issue says a minute; shorter keeps CI time sane). */
  static final Duration OUTAGE = Duration.ofSeconds(25);

  static final String AGENT = "outage-agent";
  static final String OWNER = "user:outage";

  @AutoClose private static final StoringMem0Server mem0 = new StoringMem0Server();

  @RegisterExtension
  static final TestHost HOST =
      TestHost.withTestEmbedder("outage")
          .withMem0(mem0.baseUrl())
          .withShortMem0Timeouts()
          .withOutageTimings(OutageLog.DEADLINE);

  private static final HostClient api = HOST.client();

  @Test
  void whileMem0IsDownContextCallsAnswerInTimeAndItsTurnsArriveOnceItIsBack() throws Exception {
    OutageLog log = new OutageLog(api, AGENT, OWNER, "mem0");
    List<String> phrases = log.phrases;

    // warm up: the stack answers and mem0 is reachable
    String warm = "warmphrase" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(api.turn(AGENT, OWNER, "outage-warm", "Remember " + warm, "ok").status())
        .isEqualTo(202);
    phrases.add(warm);
    await("mem0 got the first turn")
        .atMost(Duration.ofSeconds(60))
        .until(() -> mem0Text().contains(warm));

    mem0.stop();
    log.turnsAndCalls(OUTAGE, "down", "outage-");
    mem0.start();
    log.calls(Duration.ofSeconds(8), "back", "keep " + phrases.get(1));

    log.assertEveryCallAnsweredInTime("ProviderOutageTest", OUTAGE);
    assertThat(log.statuses.keySet())
        .as("mem0 was really down")
        .anyMatch(k -> k.startsWith("down:") && !k.equals("down:ok"));

    await("every turn accepted during the outage reached mem0, builtin and vector")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              assertThat(api.pending()).isZero();
              String stored = mem0Text();
              List<String> missing = phrases.stream().filter(p -> !stored.contains(p)).toList();
              assertThat(missing).as("phrases not in mem0").isEmpty();
            });
    for (String phrase : List.of(phrases.get(1), phrases.get(phrases.size() - 1))) {
      Answer recall = api.context(AGENT, OWNER, phrase, 20);
      assertThat(recall.json().get("context").asString()).as(recall.toString()).contains(phrase);
    }
  }

  private static String mem0Text() {
    StringBuilder all = new StringBuilder();
    mem0.memories().forEach(m -> all.append(m.text()).append('\n'));
    return all.toString();
  }
}
