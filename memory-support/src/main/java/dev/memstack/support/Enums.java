package dev.memstack.support;

import java.util.Optional;

/** Enum constants named in text (configuration values, tool arguments, stored names). */
public final class Enums {

  private Enums() {}

  /**
   * The constant of {@code type} called {@code name} in any case ({@code "team"} for {@code TEAM});
   * empty when {@code name} is {@code null} or names none. White space is not stripped.
   */
  public static <E extends Enum<E>> Optional<E> named(Class<E> type, String name) {
    if (name != null) {
      for (E constant : type.getEnumConstants()) {
        if (constant.name().equalsIgnoreCase(name)) {
          return Optional.of(constant);
        }
      }
    }
    return Optional.empty();
  }
}
