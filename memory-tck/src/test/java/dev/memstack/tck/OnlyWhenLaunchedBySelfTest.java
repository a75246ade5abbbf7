package dev.memstack.tck;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables a test class unless the launcher was given the configuration parameter {@value #KEY}
 * {@code = true}: kits run on purpose against broken providers must not fail a normal build.
 */
final class OnlyWhenLaunchedBySelfTest implements ExecutionCondition {

  static final String KEY = "memstack.tck.self-test";

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    return context.getConfigurationParameter(KEY).map(Boolean::parseBoolean).orElse(false)
        ? ConditionEvaluationResult.enabled("launched by the kit's self-test")
        : ConditionEvaluationResult.disabled("runs only inside the kit's self-test");
  }
}
