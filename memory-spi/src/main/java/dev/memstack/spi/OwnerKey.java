package dev.memstack.spi;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Who a memory belongs to: {@code system}, or {@code <prefix>:<id>} such as {@code user:42}, {@code
 * api:end-user-7} or {@code slack:U123}. The prefix is lower case ({@code [a-z][a-z0-9_-]*}); the
 * id is any non-empty text without control characters or whitespace; the whole key is at most 256
 * characters.
 *
 * <p>End users must only ever recall their own {@link Scope#PERSONAL} memory; the owner key is the
 * unit of that isolation and of {@link MemoryProvider#forget(OwnerKey) erasure}.
 *
 * @param value the key, never {@code null}
 */
public record OwnerKey(String value) {

  /** The owner of memory written by the platform itself. */
  public static final OwnerKey SYSTEM = new OwnerKey("system");

  /** Longest accepted key. */
  public static final int MAX_LENGTH = 256;

  private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_-]{0,31}");

  /**
   * @throws IllegalArgumentException if the key is not {@code system} or {@code <prefix>:<id>}
   */
  public OwnerKey {
    Objects.requireNonNull(value, "ownerKey");
    if (value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "ownerKey is longer than " + MAX_LENGTH + " characters (" + value.length() + ")");
    }
    if (!value.equals("system")) {
      int colon = value.indexOf(':');
      if (colon <= 0 || colon == value.length() - 1) {
        throw new IllegalArgumentException(
            "ownerKey must be 'system' or '<prefix>:<id>', got: " + Validation.quote(value));
      }
      if (!PREFIX.matcher(value.substring(0, colon)).matches()) {
        throw new IllegalArgumentException(
            "ownerKey prefix must be lower case [a-z][a-z0-9_-]*, got: " + Validation.quote(value));
      }
      String id = value.substring(colon + 1);
      for (int i = 0; i < id.length(); i++) {
        char c = id.charAt(i);
        if (Character.isISOControl(c) || Character.isWhitespace(c)) {
          throw new IllegalArgumentException(
              "ownerKey must not contain whitespace or control characters, got: "
                  + Validation.quote(value));
        }
      }
    }
  }

  /** Same as the constructor. */
  public static OwnerKey of(String value) {
    return new OwnerKey(value);
  }

  /** The part before the first colon, or {@code system}. */
  public String prefix() {
    int colon = value.indexOf(':');
    return colon < 0 ? value : value.substring(0, colon);
  }

  /** The part after the first colon, or the empty string for {@code system}. */
  public String id() {
    int colon = value.indexOf(':');
    return colon < 0 ? "" : value.substring(colon + 1);
  }

  @Override
  public String toString() {
    return value;
  }
}
