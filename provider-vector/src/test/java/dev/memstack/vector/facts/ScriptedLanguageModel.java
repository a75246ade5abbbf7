package dev.memstack.vector.facts;

import dev.memstack.spi.LanguageModel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A chat model that answers from a script, in order, and records the prompts it got. {@link #STALL}
 * makes one call hang until its timeout and then fail, as a model that does not answer would. A
 * call beyond the script fails the test.
 */
public final class ScriptedLanguageModel implements LanguageModel {

  /** Script entry: wait for the caller's timeout, then fail like a timed-out model. */
  public static final String STALL = "\u0000stall";

  private final Deque<String> script = new ArrayDeque<>();
  private final List<String> userPrompts = new ArrayList<>();

  public ScriptedLanguageModel(String... answers) {
    script.addAll(List.of(answers));
  }

  public synchronized ScriptedLanguageModel then(String answer) {
    script.add(answer);
    return this;
  }

  public synchronized List<String> userPrompts() {
    return List.copyOf(userPrompts);
  }

  public synchronized int remaining() {
    return script.size();
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
    String answer;
    synchronized (this) {
      userPrompts.add(user);
      answer = script.poll();
    }
    if (answer == null) {
      throw new AssertionError("the model was asked more often than scripted; prompt: " + user);
    }
    if (answer.equals(STALL)) {
      try {
        Thread.sleep(timeout.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("chat model timed out after " + timeout);
    }
    return answer;
  }
}
