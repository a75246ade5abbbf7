package dev.memstack.vector.store;

import dev.memstack.support.Enums;
import java.util.Locale;

/** The lifecycle of a memory record: only ACTIVE records are recalled by default. */
public enum MemoryStatus {
  ACTIVE,
  ARCHIVED,
  SUPPRESSED,
  /**
   * Replaced by a newer statement that changed one of its values (see {@code remember}): kept as
   * history, never recalled by default.
   */
  SUPERSEDED,
  /**
   * A newer statement that contradicts an active memory, stored while the contradiction check is on
   * and kept until the owner decides (see {@code resolve_contradiction}): listed and counted, never
   * recalled as a truth.
   */
  PENDING;

  /**
   * Parses a status name in any case.
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static MemoryStatus parse(String value) {
    return Enums.named(MemoryStatus.class, value == null ? null : value.trim())
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "status must be one of active, archived, suppressed, superseded, pending, got: "
                        + value));
  }

  /** The lower-case name. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
