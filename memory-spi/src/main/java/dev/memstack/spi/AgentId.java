package dev.memstack.spi;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The id of an agent whose memory a provider keeps: 1 to 64 characters from {@code [A-Za-z0-9_-]},
 * so it is safe as a file name, a SQL value and a URL path segment.
 *
 * @param value the id, never {@code null}
 */
public record AgentId(String value) {

  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  /**
   * @throws IllegalArgumentException if {@code value} does not match {@code [A-Za-z0-9_-]{1,64}}
   */
  public AgentId {
    Objects.requireNonNull(value, "agentId");
    if (!VALID.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "agentId must be 1-64 characters of [A-Za-z0-9_-], got: " + Validation.quote(value));
    }
  }

  /** Same as the constructor. */
  public static AgentId of(String value) {
    return new AgentId(value);
  }

  @Override
  public String toString() {
    return value;
  }
}
