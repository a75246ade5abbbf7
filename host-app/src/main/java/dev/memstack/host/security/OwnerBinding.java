package dev.memstack.host.security;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.memstack.spi.OwnerKey;
import java.util.Objects;

/**
 * The owners a token may act for: one owner key ({@code api:42}, an end user's token) or every
 * owner key that starts with a prefix ({@code api:*}, a platform's token for its users).
 *
 * @param pattern the owner key, or the prefix followed by {@code *}; never {@code null}
 */
public record OwnerBinding(@JsonValue String pattern) {

  /**
   * @throws IllegalArgumentException when {@code pattern} is neither an owner key nor {@code
   *     <prefix>:<start of id>*}
   */
  public OwnerBinding {
    Objects.requireNonNull(pattern, "owner");
    if (pattern.endsWith("*")) {
      String prefix = pattern.substring(0, pattern.length() - 1);
      if (prefix.indexOf('*') >= 0 || prefix.indexOf(':') <= 0) {
        throw new IllegalArgumentException(
            "an owner binding is an owner key (api:42) or an owner-key prefix ending in * (api:*),"
                + " got: "
                + pattern);
      }
      try {
        // the prefix must start a valid owner key: a lower-case key prefix, a colon, id characters
        OwnerKey.of(prefix + "x");
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "an owner binding prefix must start a valid owner key: " + e.getMessage());
      }
    } else {
      if (pattern.indexOf('*') >= 0) {
        throw new IllegalArgumentException("an owner binding may only end in *, got: " + pattern);
      }
      OwnerKey.of(pattern);
    }
  }

  /** Same as the constructor (and how JSON is read: a binding is written as its pattern). */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static OwnerBinding of(String pattern) {
    return new OwnerBinding(pattern);
  }

  /** Whether this binding is a prefix ({@code api:*}) rather than one owner key. */
  public boolean isPrefix() {
    return pattern.endsWith("*");
  }

  /** Whether a token with this binding may act for {@code owner}. */
  public boolean covers(OwnerKey owner) {
    Objects.requireNonNull(owner, "owner");
    return isPrefix()
        ? owner.value().startsWith(pattern.substring(0, pattern.length() - 1))
        : owner.value().equals(pattern);
  }

  @Override
  public String toString() {
    return pattern;
  }
}
