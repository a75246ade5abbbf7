package dev.memstack.support;

/**
 * Argument checks that name what they check, for constructors (a record's compact constructor above
 * all) that would otherwise repeat {@link java.util.Objects#requireNonNull(Object, String)} once
 * per component.
 */
public final class Require {

  private Require() {}

  /**
   * Throws a {@link NullPointerException} whose message is the name of the first {@code null} of
   * {@code values}, as {@code Objects.requireNonNull(value, name)} one after another would.
   *
   * @param names the values' names in their order, separated by single spaces ({@code "id type"})
   * @param values the values to check
   * @throws IllegalArgumentException when {@code names} does not name as many values as are given
   */
  public static void nonNull(String names, Object... values) {
    int count = names.isEmpty() ? 0 : 1;
    for (int i = 0; i < names.length(); i++) {
      if (names.charAt(i) == ' ') {
        count++;
      }
    }
    if (count != values.length) {
      throw new IllegalArgumentException(
          "\"" + names + "\" names " + count + " values, " + values.length + " given");
    }
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        throw new NullPointerException(names.split(" ")[i]);
      }
    }
  }
}
