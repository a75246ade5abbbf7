package dev.memstack.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.RecallItem;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host interrupts provider calls that run past their deadline. An interrupt that lands while a
 * thread writes through a {@code FileChannel} closes that channel; in Lucene that can close the
 * {@code IndexWriter} (or invalidate its write lock) for good. These tests interrupt threads that
 * call every hook at random moments and then check that the provider still works.
 */
@DisplayName("Interrupted calls")
class InterruptedCallsTest {

  private static final Duration CHAOS = Duration.ofMillis(2500);
  private static final Duration CHAOS_MAX = Duration.ofSeconds(60);
  private static final int MIN_CALLS = 200;

  @TempDir Path dir;
  Fixture fx;

  @AfterEach
  void close() {
    if (fx != null) {
      fx.close();
    }
  }

  @Test
  @DisplayName("leave the keyword index working after interrupts at random moments")
  void leaveTheIndexWorking() throws Exception {
    // commit on every write, so that interrupts also land in commits and fsyncs
    fx = Fixture.open(dir.resolve("builtin"), Map.of("index-commit-interval", "0s"));
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger calls = new AtomicInteger();

    List<Thread> workers = chaos(4, failures, calls);

    assertThat(calls.get()).as("calls made during the chaos").isGreaterThanOrEqualTo(MIN_CALLS);
    assertThat(workers).allMatch(t -> !t.isAlive());
    assertThat(failures)
        .as("no call may find the index closed")
        .noneMatch(InterruptedCallsTest::indexClosed);
    assertWorks("after");
  }

  @Test
  @DisplayName("leave an index that a restart opens and that still finds everything")
  void leaveAnIndexThatReopens() throws Exception {
    fx = Fixture.open(dir.resolve("builtin"), Map.of("index-commit-interval", "0s"));
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());

    chaos(3, failures, new AtomicInteger());
    assertWorks("before-restart");
    fx.restart();

    assertThat(
            fx.tool("a0", null, "search_workspace_memory", Map.of("query", "beforerestartword"))
                .path("count")
                .asInt())
        .isEqualTo(1);
    assertWorks("after-restart");
  }

  @Test
  @DisplayName("answer the interrupted call itself with its result or an error, never a hang")
  void anInterruptedCallEnds() throws Exception {
    fx = Fixture.open(dir.resolve("builtin"), Map.of("index-commit-interval", "0s"));
    AtomicBoolean ended = new AtomicBoolean();
    Thread caller =
        new Thread(
            () -> {
              for (int i = 0; i < 200; i++) {
                Thread.currentThread().interrupt();
                try {
                  fx.tool(
                      "a1",
                      null,
                      "write_workspace_memory_file",
                      Map.of("filename", "notes/n" + i + ".md", "content", "interrupted " + i));
                } catch (RuntimeException e) {
                  // an interrupted write may fail; it must not hang or break later calls
                }
                Thread.interrupted();
              }
              ended.set(true);
            });
    caller.start();
    caller.join(TimeUnit.SECONDS.toMillis(60));

    assertThat(ended).isTrue();
    assertWorks("pre-interrupted");
  }

  /**
   * Runs {@code threads} workers that call every hook while this thread interrupts them, for at
   * least {@link #CHAOS} and {@link #MIN_CALLS} calls (failed or not); {@code calls} counts them.
   */
  private List<Thread> chaos(int threads, List<Throwable> failures, AtomicInteger calls)
      throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < threads; w++) {
      int worker = w;
      Thread thread =
          new Thread(
              () -> {
                int i = 0;
                while (!stop.get()) {
                  try {
                    oneCall(worker, i++);
                  } catch (RuntimeException e) {
                    failures.add(e);
                  } finally {
                    calls.incrementAndGet();
                    Thread.interrupted();
                  }
                }
              },
              "chaos-worker-" + w);
      workers.add(thread);
      thread.start();
    }
    long start = System.nanoTime();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (System.nanoTime() - start < CHAOS_MAX.toNanos()
        && (calls.get() < MIN_CALLS || System.nanoTime() - start < CHAOS.toNanos())) {
      LockSupport.parkNanos(random.nextLong(50_000, 2_000_000));
      workers.get(random.nextInt(workers.size())).interrupt();
    }
    stop.set(true);
    for (Thread worker : workers) {
      worker.join(TimeUnit.SECONDS.toMillis(30));
    }
    return workers;
  }

  private void oneCall(int worker, int i) {
    String agent = "a" + (i % 3);
    String owner = "user:" + (worker * 10 + i % 4);
    switch (i % 6) {
      case 0 ->
          fx.provider.syncTurn(
              fx.turn(agent, owner, "t-" + worker + "-" + i, "the walrus number " + i, "noted"));
      case 1 -> fx.recall(agent, owner, "walrus number " + (i - 1), 5);
      case 2 ->
          fx.tool(
              agent,
              null,
              "write_workspace_memory_file",
              Map.of("filename", "notes/w" + worker + ".md", "content", "pelican " + i));
      case 3 -> fx.tool(agent, owner, "search_workspace_memory", Map.of("query", "pelican"));
      case 4 -> fx.provider.systemPromptBlock(AgentId.of("fresh-" + worker + "-" + i));
      default ->
          fx.tool(
              agent,
              null,
              "update_workspace_file_meta",
              Map.of("filename", "SOUL.md", "enabled", i % 2 == 0));
    }
  }

  /** A new word written now is found by search and recall, and a synced turn too. */
  private void assertWorks(String tag) {
    String word = tag.replace("-", "") + "word";
    fx.tool(
        "a0",
        null,
        "write_workspace_memory_file",
        Map.of("filename", "check-" + tag + ".md", "content", "the " + word + " is here"));
    assertThat(
            fx.tool("a0", null, "search_workspace_memory", Map.of("query", word))
                .path("count")
                .asInt())
        .as("search for a word written %s", tag)
        .isEqualTo(1);

    String turnWord = tag.replace("-", "") + "turnword";
    fx.provider.syncTurn(fx.turn("a0", "user:1", "check-" + tag, "remember " + turnWord, "ok"));
    List<RecallItem> recalled = fx.recall("a0", "user:1", turnWord, 5);
    assertThat(recalled).anyMatch(item -> item.text().contains(turnWord));
  }

  private static boolean indexClosed(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t.getClass().getName().endsWith("AlreadyClosedException")
          || String.valueOf(t.getMessage()).contains("IndexWriter is closed")) {
        return true;
      }
    }
    return false;
  }
}
