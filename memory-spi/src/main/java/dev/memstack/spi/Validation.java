package dev.memstack.spi;

/** Shared helpers for the SPI's compact-constructor checks. */
final class Validation {

  private Validation() {}

  /** Quotes a rejected value for an error message, cut short and with control characters shown. */
  static String quote(String value) {
    StringBuilder out = new StringBuilder("\"");
    int limit = Math.min(value.length(), 80);
    for (int i = 0; i < limit; i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    if (value.length() > limit) {
      out.append("...");
    }
    return out.append('"').toString();
  }

  static boolean hasControl(String value) {
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  static String requireText(String value, String name, int maxLength) {
    if (value == null) {
      throw new IllegalArgumentException(name + " is required");
    }
    if (value.length() > maxLength) {
      throw new IllegalArgumentException(
          name + " is longer than " + maxLength + " characters (" + value.length() + ")");
    }
    return value;
  }
}
