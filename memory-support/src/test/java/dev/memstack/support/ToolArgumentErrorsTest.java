package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.ToolException;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Tool argument errors")
class ToolArgumentErrorsTest {

  @Test
  @DisplayName("name the argument in the field and at the start of the message")
  void nameTheArgument() {
    for (ToolException e :
        List.of(
            ToolArgumentErrors.required("query"),
            ToolArgumentErrors.mustBe("query", "a string"),
            ToolArgumentErrors.outOfRange("query", 1, 50, 99),
            ToolArgumentErrors.invalid("query", "must not be blank"))) {
      assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
      assertThat(e.field()).isEqualTo("query");
      assertThat(e.getMessage()).startsWith("query ");
    }
    assertThat(ToolArgumentErrors.outOfRange("limit", 1, 50, 99).getMessage())
        .isEqualTo("limit must be between 1 and 50, got 99");
  }

  @Test
  @DisplayName("refuse the first unknown argument, listing the known ones")
  void refuseTheFirstUnknownArgument() {
    Set<String> known = Set.of("query", "limit");

    assertThatCode(() -> ToolArgumentErrors.requireKnown(List.of("limit", "query"), known))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> ToolArgumentErrors.requireKnown(List.of("query", "qeury"), known))
        .isInstanceOfSatisfying(
            ToolException.class,
            e -> {
              assertThat(e.field()).isEqualTo("qeury");
              assertThat(e.getMessage()).contains("[limit, query]");
            });
  }

  @Test
  @DisplayName("cut a caller's overlong argument name")
  void cutAnOverlongName() {
    ToolException e = ToolArgumentErrors.unknown("x".repeat(500), Set.of("query"));

    assertThat(e.field()).hasSize(ToolArgumentErrors.MAX_NAME + 1);
    assertThat(e.getMessage()).hasSizeLessThan(200);
  }

  @Test
  @DisplayName("name no field when the arguments as a whole cannot be read")
  void nameNoFieldForUnreadableArguments() {
    ToolException e = ToolArgumentErrors.unreadable("must be a JSON object");

    assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
    assertThat(e.field()).isNull();
    assertThat(e.getMessage()).isEqualTo("arguments must be a JSON object");
  }

  @Test
  @DisplayName("build the field name of a list element")
  void buildTheFieldNameOfAListElement() {
    assertThat(ToolArgumentErrors.element("items", 2)).isEqualTo("items/2");
    assertThat(ToolArgumentErrors.element("items", 2, "text")).isEqualTo("items/2/text");
  }
}
