package dev.memstack.vector.pgvector;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class only when {@code MEMSTACK_PG_URL} names a database; otherwise the class is
 * reported as skipped with a message that says how to enable it, except on CI ({@code CI=true}),
 * where a missing database fails the build: CI always provides one.
 */
final class PgDatabaseCondition implements ExecutionCondition {

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    String url = System.getenv(PgTestDatabase.URL_VARIABLE);
    if (url != null && !url.isBlank()) {
      return ConditionEvaluationResult.enabled(PgTestDatabase.URL_VARIABLE + " is set");
    }
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      throw new IllegalStateException(
          PgTestDatabase.URL_VARIABLE
              + " is not set on CI (CI=true). "
              + PgTestDatabase.HOW_TO_ENABLE);
    }
    return ConditionEvaluationResult.disabled(
        PgTestDatabase.URL_VARIABLE + " is not set; skipped. " + PgTestDatabase.HOW_TO_ENABLE);
  }
}
