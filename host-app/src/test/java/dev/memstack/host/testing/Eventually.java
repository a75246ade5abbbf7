package dev.memstack.host.testing;

import java.time.Duration;

/** Polls an assertion until it holds or the time is up (then its last failure is thrown). */
public final class Eventually {

  private Eventually() {}

  public static void within(Duration limit, Runnable assertion) {
    long until = System.nanoTime() + limit.toNanos();
    while (true) {
      try {
        assertion.run();
        return;
      } catch (AssertionError e) {
        if (System.nanoTime() > until) {
          throw e;
        }
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }
}
