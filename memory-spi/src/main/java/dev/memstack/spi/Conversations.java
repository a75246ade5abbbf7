package dev.memstack.spi;

/** Checks conversation and turn ids: 1-128 characters, no control characters or slashes. */
final class Conversations {

  static final int MAX_LENGTH = 128;

  private Conversations() {}

  static void check(String id) {
    checkId(id, "conversationId");
  }

  static void checkId(String id, String name) {
    if (id.isEmpty() || id.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(name + " must be 1-" + MAX_LENGTH + " characters");
    }
    if (Validation.hasControl(id) || id.indexOf('/') >= 0 || id.indexOf('\\') >= 0) {
      throw new IllegalArgumentException(
          name + " must not contain control characters or slashes, got: " + Validation.quote(id));
    }
  }
}
