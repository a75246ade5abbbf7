package dev.memstack.builtin.extraction;

import dev.memstack.spi.LanguageModel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * A chat model for tests that answers from a script of canned answers, in order, and records every
 * prompt. A {@link #stall} entry sleeps like a model that does not answer: past the caller's
 * timeout it fails as the host's model does. With an empty script it answers {@code {}}.
 */
final class ScriptedLanguageModel implements LanguageModel {

  /** One recorded call. */
  record Call(String system, String user, Duration timeout) {}

  private record Stall(Duration length) {}

  private final ConcurrentLinkedQueue<Object> script = new ConcurrentLinkedQueue<>();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  volatile CountDownLatch entered = new CountDownLatch(1);

  ScriptedLanguageModel answer(String text) {
    script.add(text);
    return this;
  }

  ScriptedLanguageModel stall(Duration length) {
    script.add(new Stall(length));
    return this;
  }

  List<Call> calls() {
    return List.copyOf(calls);
  }

  @Override
  public boolean available() {
    return true;
  }

  @Override
  public String modelId() {
    return "scripted";
  }

  @Override
  public String complete(String system, String user, Duration timeout) {
    calls.add(new Call(system, user, timeout));
    entered.countDown();
    Object next = script.poll();
    if (next instanceof Stall stall) {
      Duration wait = stall.length().compareTo(timeout) < 0 ? stall.length() : timeout;
      try {
        Thread.sleep(wait.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      if (stall.length().compareTo(timeout) >= 0) {
        throw new IllegalStateException("chat model scripted did not answer within " + timeout);
      }
      return "{}";
    }
    return next == null ? "{}" : (String) next;
  }
}
