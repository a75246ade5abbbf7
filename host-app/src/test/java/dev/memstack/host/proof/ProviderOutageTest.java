package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.proof.ProofClient.Answer;
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
 * Fault test: the Mem0 server (a storing fake) goes away for {@link #OUTAGE} and comes back on the
 * same port. Throughout, a client keeps making context calls (each one timed) and handing in turns:
 * every context call answers 200 within the stack's deadline plus a margin, every turn is accepted,
 * and once the server is back every turn accepted meanwhile reaches it (and builtin and vector), so
 * nothing is lost.
 */
class ProviderOutageTest {

  /** How long the Mem0 server is down (the issue says a minute; shorter keeps CI time sane). */
  static final Duration OUTAGE = Duration.ofSeconds(25);

  static final Duration DEADLINE = Duration.ofMillis(3000);

  /** Scheduling noise on a busy 2-core machine, on top of the deadline. */
  static final Duration MARGIN = Duration.ofMillis(2000);

  static final String AGENT = "outage-agent";
  static final String OWNER = "user:outage";

  private static StoringMem0Server mem0;
  private static ProofHost host;
  private static ProofClient api;

  @BeforeAll
  static void start() {
    mem0 = new StoringMem0Server();
    host =
        ProofHost.create("outage")
            .with("memstack.providers.mem0.enabled", "true")
            .with("memstack.providers.mem0.config.base-url", mem0.baseUrl())
            .with("memstack.providers.mem0.config.timeout-ms", "1500")
            .with("memstack.providers.mem0.config.sync-timeout-ms", "3000")
            .with("memstack.providers.mem0.config.breaker-open-ms", "1000")
            .with("memstack.stack.context.deadline", DEADLINE.toMillis() + "ms")
            .with("memstack.stack.context.provider-timeout", "2500ms")
            .with("memstack.stack.system-prompt.timeout", "2500ms")
            .with("memstack.stack.breaker.open-duration", "1s")
            .start();
    api = host.client();
  }

  @AfterAll
  static void stop() {
    if (host != null) {
      host.close();
    }
    if (mem0 != null) {
      mem0.close();
    }
  }

  @Test
  void whileMem0IsDownContextCallsAnswerInTimeAndItsTurnsArriveOnceItIsBack() throws Exception {
    List<String> phrases = new ArrayList<>();
    List<Answer> contextCalls = new ArrayList<>();
    Map<String, Integer> mem0Statuses = new TreeMap<>();

    // warm up: the stack answers and mem0 is reachable
    String warm = "warmphrase" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(api.turn(AGENT, OWNER, "outage-warm", "Remember " + warm, "ok").status())
        .isEqualTo(202);
    phrases.add(warm);
    await("mem0 got the first turn")
        .atMost(Duration.ofSeconds(60))
        .until(() -> mem0Text().contains(warm));

    mem0.stop();
    long outageEnd = System.nanoTime() + OUTAGE.toNanos();
    int i = 0;
    while (System.nanoTime() < outageEnd) {
      String phrase = "outagephrase" + (i++) + "x" + UUID.randomUUID().toString().substring(0, 6);
      Answer turn = api.turn(AGENT, OWNER, "outage-" + phrase, "Please keep " + phrase, "Kept.");
      assertThat(turn.status()).as(turn.toString()).isEqualTo(202);
      phrases.add(phrase);
      Answer context = api.context(AGENT, OWNER, "keep " + phrase, 10);
      contextCalls.add(context);
      mem0Statuses.merge("down:" + context.statusOf("mem0"), 1, Integer::sum);
      Thread.sleep(300);
    }
    mem0.start();
    long afterEnd = System.nanoTime() + Duration.ofSeconds(8).toNanos();
    while (System.nanoTime() < afterEnd) {
      Answer context = api.context(AGENT, OWNER, "keep " + phrases.get(1), 10);
      contextCalls.add(context);
      mem0Statuses.merge("back:" + context.statusOf("mem0"), 1, Integer::sum);
      Thread.sleep(300);
    }

    long slowest = contextCalls.stream().mapToLong(a -> a.took().toMillis()).max().orElseThrow();
    System.out.println(
        "ProviderOutageTest: outage "
            + OUTAGE.toSeconds()
            + " s, "
            + phrases.size()
            + " turns, "
            + contextCalls.size()
            + " context calls, slowest "
            + slowest
            + " ms, mem0 statuses "
            + mem0Statuses);
    for (Answer call : contextCalls) {
      assertThat(call.status()).as(call.toString()).isEqualTo(200);
      assertThat(call.took()).as(call.toString()).isLessThanOrEqualTo(DEADLINE.plus(MARGIN));
    }
    assertThat(mem0Statuses.keySet())
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
