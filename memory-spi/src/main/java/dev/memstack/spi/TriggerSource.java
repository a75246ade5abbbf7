package dev.memstack.spi;

import java.util.Locale;

/** What started the conversation a turn belongs to. */
public enum TriggerSource {
  /** A person in a web client. */
  WEB,
  /** A message channel (chat app, e-mail, ...). */
  CHANNEL,
  /** A program calling the platform's API. */
  API,
  /** A scheduled job; providers may choose not to learn from these turns. */
  CRON;

  /**
   * Parses {@code web}, {@code channel}, {@code api} or {@code cron}, in any case.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static TriggerSource parse(String value) {
    if (value != null) {
      for (TriggerSource source : values()) {
        if (source.name().equalsIgnoreCase(value.trim())) {
          return source;
        }
      }
    }
    throw new IllegalArgumentException(
        "triggerSource must be one of web, channel, api, cron, got: "
            + (value == null ? "null" : Validation.quote(value)));
  }

  /** The lower-case wire name. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
