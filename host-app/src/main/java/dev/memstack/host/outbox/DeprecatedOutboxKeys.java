package dev.memstack.host.outbox;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Keeps the outbox keys of the first releases working: each old key under {@code
 * memstack.stack.sync.*} is read as its {@code memstack.outbox.*} replacement when the replacement
 * is not set anywhere, with a warning at start that names both. Runs after the configuration files
 * are loaded, so an old key from {@code application.yml}, an argument or the environment counts
 * alike; a replacement that is set always wins.
 */
public final class DeprecatedOutboxKeys implements EnvironmentPostProcessor, Ordered {

  /** Old key to its replacement. */
  static final Map<String, String> ALIASES =
      Map.of(
          "memstack.stack.sync.initial-backoff", "memstack.outbox.initial-backoff",
          "memstack.stack.sync.max-backoff", "memstack.outbox.max-backoff",
          "memstack.stack.sync.shutdown-grace", "memstack.outbox.shutdown-grace",
          "memstack.stack.sync.queue-capacity", "memstack.outbox.max-pending");

  /** The property source the aliased values go to, last in precedence. */
  static final String SOURCE = "memstackDeprecatedOutboxKeys";

  private final Log log;

  public DeprecatedOutboxKeys(DeferredLogFactory logs) {
    this.log = logs.getLog(DeprecatedOutboxKeys.class);
  }

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    Map<String, Object> values = new LinkedHashMap<>();
    ALIASES.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            alias -> {
              String old = alias.getKey();
              String replacement = alias.getValue();
              String value = environment.getProperty(old);
              if (value == null) {
                return;
              }
              if (environment.containsProperty(replacement)) {
                log.warn(
                    old
                        + " is deprecated and ignored: "
                        + replacement
                        + " is set and takes its place");
                return;
              }
              log.warn(old + " is deprecated; use " + replacement + " (read as it now)");
              values.put(replacement, value);
            });
    if (!values.isEmpty()) {
      environment.getPropertySources().addLast(new MapPropertySource(SOURCE, values));
    }
  }

  /** After the configuration files are loaded. */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
