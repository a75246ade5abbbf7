package dev.memstack.host.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The model tests' check that a wrong value stops the start and the failure names its key. */
final class StartRefusals {

  private StartRefusals() {}

  /** Starts {@code context} with {@code key=value}: the start fails, naming {@code key}. */
  static void assertRefusedNamingTheKey(
      ApplicationContextRunner context, String key, String value) {
    context
        .withPropertyValues(key + "=" + value)
        .run(
            app -> {
              assertThat(app).hasFailed();
              assertThat(app.getStartupFailure()).hasStackTraceContaining(key);
              assertThat(messages(app.getStartupFailure())).contains(key);
            });
  }

  /** The messages of {@code failure} and its causes, with the name of a failed binding. */
  private static String messages(Throwable failure) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
      if (t instanceof BindException bind) {
        all.append(bind.getName()).append('\n');
      }
    }
    return all.toString();
  }
}
