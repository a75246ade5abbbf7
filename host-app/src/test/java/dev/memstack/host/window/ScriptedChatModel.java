package dev.memstack.host.window;

import dev.memstack.spi.LanguageModel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A chat model for the window's tests: answers every completion with {@code answer} applied to the
 * user prompt, records every call, and fails every call while {@link #failing} is set.
 */
final class ScriptedChatModel implements LanguageModel {

  record Call(String system, String user) {}

  private final String modelId;
  private final Function<String, String> answer;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  volatile boolean failing;

  ScriptedChatModel(String modelId, Function<String, String> answer) {
    this.modelId = modelId;
    this.answer = answer;
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
    return modelId;
  }

  @Override
  public String complete(String system, String user, Duration timeout) {
    calls.add(new Call(system, user));
    if (failing) {
      throw new IllegalStateException("chat model " + modelId + " failed");
    }
    return answer.apply(user);
  }
}
