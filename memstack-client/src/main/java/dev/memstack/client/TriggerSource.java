package dev.memstack.client;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Where a turn came from, as the host's {@code triggerSource} field names it. */
public enum TriggerSource {
  /** A person in a web or app chat. */
  WEB,
  /** A messaging channel (Slack, mail, ...). */
  CHANNEL,
  /** A program calling the agent. */
  API,
  /** A scheduled job. */
  CRON;

  /** The name on the wire: {@code web}, {@code channel}, {@code api} or {@code cron}. */
  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
