package dev.memstack.host.stack;

import java.time.Duration;

/** Polls an assertion until it holds or the time is up (then its last failure is thrown). */
final class Eventually {

  private Eventually() {}

  static void within(Duration limit, Runnable assertion) {
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
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }
}
