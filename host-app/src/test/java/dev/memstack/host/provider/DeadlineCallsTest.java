package dev.memstack.host.provider;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The call pool never interrupts a provider call: not at its deadline, not when it closes. */
class DeadlineCallsTest {

  private final StackMember member = new TestMembers().add("p");
  private final DeadlineCalls deadlines =
      new DeadlineCalls(new ProviderCalls(new SimpleMeterRegistry()), 4, 4);
  private final CountDownLatch running = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicBoolean interrupted = new AtomicBoolean();

  @AfterEach
  void tearDown() {
    release.countDown();
    deadlines.close(Duration.ZERO);
  }

  /** A call that blocks until released and remembers whether it saw an interrupt. */
  private final Supplier<String> blocking =
      () -> {
        running.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          interrupted.set(true);
        }
        if (Thread.currentThread().isInterrupted()) {
          interrupted.set(true);
        }
        return "finished";
      };

  private static long in(Duration wait) {
    return System.nanoTime() + wait.toNanos();
  }

  @Test
  void closingThePoolWaitsForARunningCallWithoutInterruptingIt() throws Exception {
    DeadlineCalls.Call<String> call = deadlines.start(member, ProviderCalls.PREFETCH, blocking);
    assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(() -> deadlines.close(Duration.ofSeconds(10)));
    closer.start();
    Thread.sleep(300);
    assertThat(closer.isAlive()).as("close waits for the running call").isTrue();
    release.countDown();
    closer.join(5_000);

    assertThat(closer.isAlive()).isFalse();
    CallOutcome<String> outcome = call.await(in(Duration.ofSeconds(5)));
    assertThat(outcome.status()).isEqualTo(CallOutcome.Status.OK);
    assertThat(outcome.value()).isEqualTo("finished");
    assertThat(interrupted).as("the call saw an interrupt").isFalse();
  }

  @Test
  void aCallStillRunningWhenTheCloseWaitEndsFinishesOnItsOwn() throws Exception {
    DeadlineCalls.Call<String> call = deadlines.start(member, ProviderCalls.PREFETCH, blocking);
    assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
    CallOutcome<String> late = call.await(in(Duration.ofMillis(50)));
    assertThat(late.status()).isEqualTo(CallOutcome.Status.TIMEOUT);

    long start = System.nanoTime();
    deadlines.close(Duration.ofMillis(200));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));

    CallOutcome<String> refused =
        deadlines.start(member, ProviderCalls.PREFETCH, () -> "new").await(in(Duration.ZERO));
    assertThat(refused.status()).isEqualTo(CallOutcome.Status.BUSY);
    assertThat(refused.detail()).isEqualTo("the memory stack is shut down");

    release.countDown();
    long until = in(Duration.ofSeconds(5));
    while (deadlines.lateCalls(member) > 0 && System.nanoTime() < until) {
      Thread.sleep(10);
    }
    assertThat(deadlines.lateCalls(member)).as("late calls once it finished").isZero();
    assertThat(interrupted).as("the call saw an interrupt").isFalse();
  }
}
