package dev.memstack.testing;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class ({@code @ExtendWith(TestPostgresCondition.class)}) only when {@code
 * MEMSTACK_PG_URL} names a database; otherwise it is reported as skipped with a message that says
 * how to enable it, except on CI ({@code CI=true}), where a missing database fails the build.
 */
public final class TestPostgresCondition implements ExecutionCondition {

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (TestPostgres.configured()) {
      return ConditionEvaluationResult.enabled(TestPostgres.URL_VARIABLE + " is set");
    }
    if (TestPostgres.onCi()) {
      throw new IllegalStateException(
          TestPostgres.URL_VARIABLE + " is not set on CI (CI=true): " + TestPostgres.HOW_TO_ENABLE);
    }
    return ConditionEvaluationResult.disabled(
        TestPostgres.URL_VARIABLE + " is not set; skipped: " + TestPostgres.HOW_TO_ENABLE);
  }
}
