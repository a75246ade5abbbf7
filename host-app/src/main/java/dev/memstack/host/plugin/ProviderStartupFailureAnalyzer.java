package dev.memstack.host.plugin;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link ProviderStartupException} into Spring Boot's "APPLICATION FAILED TO START" report,
 * naming the key to fix instead of printing a stack trace.
 */
public final class ProviderStartupFailureAnalyzer
    extends AbstractFailureAnalyzer<ProviderStartupException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, ProviderStartupException cause) {
    return new FailureAnalysis(
        "A memory provider cannot start. " + cause.getMessage(),
        "Fix the setting "
            + cause.key()
            + " (see docs/rest-api.md and the memstack.providers.* configuration metadata),"
            + " install the plugin that offers the provider type,"
            + " or disable the instance with memstack.providers.<id>.enabled=false.",
        cause);
  }
}
