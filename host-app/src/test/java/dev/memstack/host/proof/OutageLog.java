package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * What an outage test sends while one provider is out and what it saw: the phrases of the turns,
 * every context call and how often each status of the provider came back, by phase.
 */
final class OutageLog {

  /** The stack's context deadline in the outage tests. */
  static final Duration DEADLINE = Duration.ofMillis(3000);

  /** Scheduling noise on a busy 2-core machine, on top of the deadline. */
  static final Duration MARGIN = Duration.ofMillis(2000);

  final List<String> phrases = new ArrayList<>();
  final List<Answer> calls = new ArrayList<>();
  final Map<String, Integer> statuses = new TreeMap<>();

  private final HostClient api;
  private final String agent;
  private final String owner;
  private final String provider;

  OutageLog(HostClient api, String agent, String owner, String provider) {
    this.api = api;
    this.agent = agent;
    this.owner = owner;
    this.provider = provider;
  }

  /**
   * For {@code duration}, every 300 ms: a turn with a new phrase (accepted, whatever is out) and a
   * context call for it, counted under {@code phase}.
   */
  void turnsAndCalls(Duration duration, String phase, String turnPrefix)
      throws InterruptedException {
    long end = System.nanoTime() + duration.toNanos();
    int i = 0;
    while (System.nanoTime() < end) {
      String phrase = phase + "phrase" + (i++) + "x" + UUID.randomUUID().toString().substring(0, 6);
      Answer turn =
          api.turn(agent, owner, turnPrefix + phrase, "Please keep " + phrase, "Kept.").expect(202);
      phrases.add(phrase);
      call(phase, "keep " + phrase);
      Thread.sleep(300);
    }
  }

  /** For {@code duration}, a context call for {@code query} every 300 ms, counted under phase. */
  void calls(Duration duration, String phase, String query) throws InterruptedException {
    long end = System.nanoTime() + duration.toNanos();
    while (System.nanoTime() < end) {
      call(phase, query);
      Thread.sleep(300);
    }
  }

  private void call(String phase, String query) {
    Answer context = api.context(agent, owner, query, 10);
    calls.add(context);
    statuses.merge(phase + ":" + context.statusOf(provider), 1, Integer::sum);
  }

  /** Prints what was seen; asserts every context call answered 200 by the deadline. */
  void assertEveryCallAnsweredInTime(String test, Duration outage) {
    long slowest = calls.stream().mapToLong(a -> a.took().toMillis()).max().orElseThrow();
    System.out.printf(
        "%s: out %d s, %d turns, %d context calls, slowest %d ms, %s %s%n",
        test, outage.toSeconds(), phrases.size(), calls.size(), slowest, provider, statuses);
    for (Answer call : calls) {
      assertThat(call.status()).as(call.toString()).isEqualTo(200);
      assertThat(call.took()).as(call.toString()).isLessThanOrEqualTo(DEADLINE.plus(MARGIN));
    }
  }
}
