package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("Tool arguments")
class ToolArgumentsTest {

  private static ToolArguments args(String json) {
    return ToolArguments.parse(json);
  }

  /** Asserts an INVALID_ARGUMENT naming {@code field} with exactly {@code message}. */
  private static void refuses(Runnable read, String field, String message) {
    assertThatThrownBy(read::run)
        .isInstanceOfSatisfying(
            ToolException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
              assertThat(e.field()).isEqualTo(field);
            })
        .hasMessage(message);
  }

  private static AbstractThrowableAssert<?, ? extends Throwable> unreadable(String json) {
    return assertThatThrownBy(() -> args(json))
        .isInstanceOfSatisfying(
            ToolException.class,
            e -> {
              assertThat(e.kind()).isEqualTo(ToolException.Kind.INVALID_ARGUMENT);
              assertThat(e.field()).isNull();
            });
  }

  @Nested
  @DisplayName("parsing")
  class Parsing {

    @Test
    @DisplayName("reads the call's arguments")
    void readsTheCallsArguments() {
      ToolCall call = new ToolCall(AgentId.of("a1"), null, "t", "{\"query\":\"tea\"}");
      assertThat(ToolArguments.parse(call).requiredString("query")).isEqualTo("tea");
    }

    @Test
    @DisplayName("takes blank text as no arguments")
    void takesBlankTextAsNoArguments() {
      ToolArguments none = args("  ");
      assertThat(none.has("query")).isFalse();
      assertThat(none.optionalString("query")).isNull();
    }

    @Test
    @DisplayName("refuses malformed JSON without a field, saying what is wrong")
    void refusesMalformedJson() {
      unreadable("{\"query\":").hasMessageStartingWith("arguments are not valid JSON: ");
      unreadable("not json").hasMessageStartingWith("arguments are not valid JSON: ");
    }

    @Test
    @DisplayName("refuses text after the object (strict)")
    void refusesTrailingText() {
      unreadable("{\"query\":\"x\"} trailing")
          .hasMessageStartingWith("arguments are not valid JSON");
      unreadable("{} {}").hasMessageStartingWith("arguments are not valid JSON");
    }

    @Test
    @DisplayName("refuses an argument given twice")
    void refusesADuplicateName() {
      unreadable("{\"scope\":\"personal\",\"scope\":\"team\"}")
          .hasMessageStartingWith("arguments are not valid JSON")
          .hasMessageContaining("scope");
    }

    @Test
    @DisplayName("refuses JSON that is not an object")
    void refusesANonObject() {
      for (String json : List.of("[1]", "\"x\"", "42", "null")) {
        unreadable(json).hasMessage("arguments must be a JSON object");
      }
    }

    @Test
    @DisplayName("refuses unknown arguments, naming the first and listing the known")
    void refusesUnknownArguments() {
      assertThat(args("{\"query\":\"x\",\"limit\":1}").requireOnly("query", "limit").has("limit"))
          .isTrue();
      refuses(
          () -> args("{\"query\":\"x\",\"qeury\":\"y\"}").requireOnly(Set.of("query", "limit")),
          "qeury",
          "qeury is not an argument of this tool; known: [limit, query]");
    }

    @Test
    @DisplayName("treats JSON null as absent")
    void treatsNullAsAbsent() {
      ToolArguments a = args("{\"s\":null,\"n\":null,\"b\":null,\"l\":null}");
      assertThat(a.has("s")).isFalse();
      assertThat(a.optionalString("s")).isNull();
      assertThat(a.optionalInt("n", 0, 9, 4)).isEqualTo(4);
      assertThat(a.optionalBoolean("b")).isNull();
      assertThat(a.stringList("l")).isEmpty();
      refuses(() -> a.requiredString("s"), "s", "s is required");
    }
  }

  @Nested
  @DisplayName("strings")
  class Strings {

    @Test
    @DisplayName("give a string as it is, empty included")
    void giveAStringAsItIs() {
      ToolArguments a = args("{\"content\":\"  hi \",\"empty\":\"\"}");
      assertThat(a.requiredString("content")).isEqualTo("  hi ");
      assertThat(a.requiredString("empty")).isEmpty();
      assertThat(a.optionalString("missing")).isNull();
      refuses(() -> a.requiredString("missing"), "missing", "missing is required");
    }

    @Test
    @DisplayName("refuse a value of another type")
    void refuseAnotherType() {
      refuses(
          () -> args("{\"query\":5}").optionalString("query"), "query", "query must be a string");
      refuses(
          () -> args("{\"query\":[\"x\"]}").requiredString("query"),
          "query",
          "query must be a string");
    }

    @Test
    @DisplayName("refuse a lone surrogate, high or low, and keep a pair")
    void refuseALoneSurrogate() {
      refuses(
          () -> args("{\"text\":\"x\\ud800y\"}").optionalString("text"),
          "text",
          "text is not valid Unicode: a lone surrogate at index 1");
      refuses(
          () -> args("{\"text\":\"\\udc00\"}").requiredText("text"),
          "text",
          "text is not valid Unicode: a lone surrogate at index 0");
      assertThat(args("{\"text\":\"\\ud83d\\ude00\"}").requiredString("text")).isEqualTo("😀");
    }

    @Test
    @DisplayName("read texts stripped, blank as absent, within a length")
    void readTexts() {
      ToolArguments a = args("{\"text\":\"  tea  \",\"blank\":\"   \"}");
      assertThat(a.requiredText("text")).isEqualTo("tea");
      assertThat(a.optionalText("blank")).isNull();
      assertThat(a.requiredText("text", 3)).isEqualTo("tea");
      refuses(() -> a.requiredText("blank"), "blank", "blank is required");
      refuses(() -> a.requiredText("text", 2), "text", "text is longer than 2 characters");
    }

    @Test
    @DisplayName("read an id given as a string or an integer")
    void readAnId() {
      assertThat(args("{\"agentId\":\"a1\"}").optionalId("agentId")).isEqualTo("a1");
      assertThat(args("{\"agentId\":42}").optionalId("agentId")).isEqualTo("42");
      assertThat(args("{}").optionalId("agentId")).isNull();
      refuses(
          () -> args("{\"agentId\":true}").optionalId("agentId"),
          "agentId",
          "agentId must be a string");
      refuses(
          () -> args("{\"agentId\":1.5}").optionalId("agentId"),
          "agentId",
          "agentId must be a string");
    }

    @Test
    @DisplayName("read a list of strings, or one string, stripped and without blanks")
    void readAStringList() {
      assertThat(args("{\"type\":[\" FACT \",\"\",\"TASK\"]}").stringList("type"))
          .containsExactly("FACT", "TASK");
      assertThat(args("{\"type\":\" FACT \"}").stringList("type")).containsExactly("FACT");
      assertThat(args("{}").stringList("type")).isEmpty();
      refuses(
          () -> args("{\"status\":[\"active\",7]}").stringList("status"),
          "status/1",
          "status/1 must be a string");
      refuses(
          () -> args("{\"status\":{}}").stringList("status"),
          "status",
          "status must be a string or a list of strings");
      refuses(
          () -> args("{\"status\":[\"ok\",\"\\ud800\"]}").stringList("status"),
          "status/1",
          "status/1 is not valid Unicode: a lone surrogate at index 0");
    }
  }

  @Nested
  @DisplayName("numbers and booleans")
  class NumbersAndBooleans {

    @Test
    @DisplayName("read an integer within bounds, or the fallback")
    void readAnInteger() {
      assertThat(args("{\"limit\":7}").optionalInt("limit", 1, 50, 10)).isEqualTo(7);
      assertThat(args("{}").optionalInt("limit", 1, 50, 10)).isEqualTo(10);
      assertThat(args("{}").optionalInt("limit", 1, 50)).isNull();
      assertThat(args("{\"sortOrder\":-5}").optionalInt("sortOrder", -9, 9)).isEqualTo(-5);
    }

    @Test
    @DisplayName("refuse a non-integer and an integer out of bounds")
    void refuseABadInteger() {
      for (String bad : List.of("\"7\"", "1.5", "true", "99999999999")) {
        refuses(
            () -> args("{\"limit\":" + bad + "}").optionalInt("limit", 1, 50, 10),
            "limit",
            "limit must be an integer");
      }
      refuses(
          () -> args("{\"limit\":99}").optionalInt("limit", 1, 50, 10),
          "limit",
          "limit must be between 1 and 50, got 99");
      refuses(
          () -> args("{\"limit\":0}").optionalInt("limit", 1, 50),
          "limit",
          "limit must be between 1 and 50, got 0");
    }

    @Test
    @DisplayName("read a number within bounds, integer or decimal")
    void readANumber() {
      assertThat(args("{\"threshold\":0.75}").optionalDouble("threshold", 0.5, 1, 0.9))
          .isEqualTo(0.75);
      assertThat(args("{\"threshold\":1}").optionalDouble("threshold", 0.5, 1, 0.9)).isEqualTo(1);
      assertThat(args("{}").optionalDouble("threshold", 0.5, 1, 0.9)).isEqualTo(0.9);
      refuses(
          () -> args("{\"threshold\":\"high\"}").optionalDouble("threshold", 0.5, 1, 0.9),
          "threshold",
          "threshold must be a number");
      refuses(
          () -> args("{\"threshold\":0.2}").optionalDouble("threshold", 0.5, 1, 0.9),
          "threshold",
          "threshold must be between 0.5 and 1.0, got 0.2");
    }

    @Test
    @DisplayName("read a boolean, or the fallback, and refuse anything else")
    void readABoolean() {
      assertThat(args("{\"infer\":false}").optionalBoolean("infer", true)).isFalse();
      assertThat(args("{}").optionalBoolean("infer", true)).isTrue();
      assertThat(args("{\"infer\":true}").optionalBoolean("infer")).isTrue();
      assertThat(args("{}").optionalBoolean("infer")).isNull();
      for (String bad : List.of("\"true\"", "1", "\"yes\"")) {
        refuses(
            () -> args("{\"infer\":" + bad + "}").optionalBoolean("infer", true),
            "infer",
            "infer must be true or false");
      }
    }
  }

  @Nested
  @DisplayName("enums and times")
  class EnumsAndTimes {

    @Test
    @DisplayName("read an enum constant in any case, or the fallback")
    void readAnEnum() {
      assertThat(args("{\"scope\":\" Team \"}").optionalEnum("scope", Scope.class, Scope.PERSONAL))
          .isEqualTo(Scope.TEAM);
      assertThat(args("{}").optionalEnum("scope", Scope.class, Scope.PERSONAL))
          .isEqualTo(Scope.PERSONAL);
      assertThat(args("{\"scope\":\"\"}").optionalEnum("scope", Scope.class, null)).isNull();
      refuses(
          () -> args("{\"scope\":\"galaxy\"}").optionalEnum("scope", Scope.class, Scope.PERSONAL),
          "scope",
          "scope must be one of personal, team, global, got 'galaxy'");
    }

    @Test
    @DisplayName("read an ISO instant or date, and refuse other text, cut when long")
    void readATime() {
      assertThat(args("{\"since\":\"2026-03-02\"}").optionalInstant("since"))
          .isEqualTo(Instant.parse("2026-03-02T00:00:00Z"));
      assertThat(args("{\"since\":\" 2026-03-02T10:00:00Z \"}").optionalInstant("since"))
          .isEqualTo(Instant.parse("2026-03-02T10:00:00Z"));
      assertThat(args("{}").optionalInstant("since")).isNull();
      refuses(
          () -> args("{\"until\":\"yesterday\"}").optionalInstant("until"),
          "until",
          "until must be an ISO date (2026-03-02) or instant (2026-03-02T10:00:00Z), got"
              + " 'yesterday'");
      assertThatThrownBy(
              () -> args("{\"until\":\"" + "x".repeat(5000) + "\"}").optionalInstant("until"))
          .hasMessageEndingWith("…'")
          .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(200));
    }
  }
}
