package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RequireTest {

  @Test
  void passesWhenNothingIsNull() {
    assertThatCode(() -> Require.nonNull("a b c", 1, "x", 2.0)).doesNotThrowAnyException();
    assertThatCode(() -> Require.nonNull("")).doesNotThrowAnyException();
  }

  @Test
  void namesTheFirstNull() {
    assertThatThrownBy(() -> Require.nonNull("id type plugin", "x", null, null))
        .isExactlyInstanceOf(NullPointerException.class)
        .hasMessage("type");
    assertThatThrownBy(() -> Require.nonNull("id", (Object) null))
        .isExactlyInstanceOf(NullPointerException.class)
        .hasMessage("id");
  }

  @Test
  void refusesNamesThatDoNotMatchTheValues() {
    assertThatThrownBy(() -> Require.nonNull("a b", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names 2 values, 1 given");
    assertThatThrownBy(() -> Require.nonNull("a", "x", "y"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
