package dev.memstack.host.security;

import java.util.Locale;

/**
 * What a token may do. Each role includes the ones before it: {@code member} may do what {@code
 * viewer} may, {@code admin} what {@code member} may.
 */
public enum Role {
  /** Reads: context calls, read-only tools, exports, the plugin list. */
  VIEWER,
  /** Writes memory: turns, tools that write. */
  MEMBER,
  /** Runs the host: plugin stop/start/reload, providers, the outbox, erasure of any owner. */
  ADMIN;

  /** Whether a token with this role may do what {@code needed} allows. */
  public boolean includes(Role needed) {
    return compareTo(needed) >= 0;
  }

  /** The lower-case name used in configuration and messages. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
