package dev.memstack.support;

import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON arguments of one tool call, read with typed, checked accessors: the one tool-argument
 * reader of every provider. Every problem is a {@link ToolException} of kind {@code
 * INVALID_ARGUMENT} from {@link ToolArgumentErrors}, naming the argument in {@link
 * ToolException#field()} and at the start of the message.
 *
 * <pre>{@code
 * ToolArguments args = ToolArguments.parse(call).requireOnly("query", "limit");
 * String query = args.requiredText("query", 2000);
 * int limit = args.optionalInt("limit", 1, 50, 10);
 * }</pre>
 *
 * <p>Parsing is strict: the arguments are one JSON object (blank text counts as no arguments), with
 * nothing after it and no name given twice. Every string read is refused when it holds a lone
 * UTF-16 surrogate (it cannot be stored or sent as UTF-8). Absent and JSON {@code null} are the
 * same: the {@code optional...} accessors give {@code null} (or the fallback) for both.
 *
 * <p>Built on Jackson 3 ({@code tools.jackson.core:jackson-databind}), an optional dependency of
 * this library: a plugin that uses this class bundles jackson-databind in its {@code lib/} (every
 * bundled plugin does). No Jackson type is part of this API, so none crosses the host/plugin
 * boundary. Immutable once parsed, so safe to read from any thread; the parser is shared.
 */
public final class ToolArguments {

  private static final JsonMapper JSON =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private final JsonNode node;

  private ToolArguments(JsonNode node) {
    this.node = node;
  }

  /**
   * Parses the call's arguments.
   *
   * @throws ToolException INVALID_ARGUMENT without a field when the text is not one JSON object
   */
  public static ToolArguments parse(ToolCall call) {
    return parse(Objects.requireNonNull(call, "call").arguments());
  }

  /**
   * Parses {@code json}: one JSON object, or blank for no arguments.
   *
   * @throws ToolException INVALID_ARGUMENT without a field when the text is not one JSON object
   */
  public static ToolArguments parse(String json) {
    Objects.requireNonNull(json, "json");
    if (json.isBlank()) {
      return new ToolArguments(JSON.createObjectNode());
    }
    JsonNode parsed;
    try {
      parsed = JSON.readTree(json);
    } catch (JacksonException e) {
      throw ToolArgumentErrors.unreadable("are not valid JSON: " + e.getOriginalMessage());
    }
    if (parsed == null || !parsed.isObject()) {
      throw ToolArgumentErrors.unreadable("must be a JSON object");
    }
    return new ToolArguments(parsed);
  }

  /**
   * Refuses an argument outside {@code known}, naming the first one in the call's order.
   *
   * @return this, to read on
   * @throws ToolException {@link ToolArgumentErrors#unknown}
   */
  public ToolArguments requireOnly(String... known) {
    return requireOnly(Arrays.asList(known));
  }

  /** As {@link #requireOnly(String...)}. */
  public ToolArguments requireOnly(Collection<String> known) {
    ToolArgumentErrors.requireKnown(node.propertyNames(), known);
    return this;
  }

  /** Whether the argument is given with a value other than JSON {@code null}. */
  public boolean has(String name) {
    JsonNode value = node.get(name);
    return value != null && !value.isNull();
  }

  // ------------------------------------------------------------------ strings

  /**
   * A string argument as given (it may be empty or blank), or {@code null} when absent.
   *
   * @throws ToolException {@code <name> must be a string}, or not valid Unicode
   */
  public String optionalString(String name) {
    JsonNode value = value(name, JsonNode::isString, "a string");
    return value == null ? null : checked(name, value.stringValue());
  }

  /**
   * A string argument that must be given (it may be empty or blank).
   *
   * @throws ToolException {@code <name> is required}, or as {@link #optionalString}
   */
  public String requiredString(String name) {
    String value = optionalString(name);
    if (value == null) {
      throw ToolArgumentErrors.required(name);
    }
    return value;
  }

  /**
   * A text argument: a string that is not blank, stripped; {@code null} when absent or blank.
   *
   * @throws ToolException as {@link #optionalString}
   */
  public String optionalText(String name) {
    String value = optionalString(name);
    return value == null || value.isBlank() ? null : value.strip();
  }

  /**
   * A text argument that must be given and not blank, stripped.
   *
   * @throws ToolException {@code <name> is required} (also when blank), or as {@link
   *     #optionalString}
   */
  public String requiredText(String name) {
    String value = optionalText(name);
    if (value == null) {
      throw ToolArgumentErrors.required(name);
    }
    return value;
  }

  /**
   * As {@link #requiredText(String)}, at most {@code maxLength} characters once stripped.
   *
   * @throws ToolException {@code <name> is longer than <maxLength> characters}
   */
  public String requiredText(String name, int maxLength) {
    String value = requiredText(name);
    if (value.length() > maxLength) {
      throw ToolArgumentErrors.invalid(name, "is longer than " + maxLength + " characters");
    }
    return value;
  }

  /**
   * An identifier given as a string or as an integer (clients send numeric ids either way), as
   * text; {@code null} when absent.
   *
   * @throws ToolException {@code <name> must be a string} for any other JSON value
   */
  public String optionalId(String name) {
    JsonNode value = value(name);
    if (value == null) {
      return null;
    }
    if (value.isIntegralNumber()) {
      return value.asString();
    }
    return optionalString(name);
  }

  /**
   * A list of texts: a JSON array of strings, or one string for a list of one. Each is stripped and
   * blank ones are left out; empty when absent.
   *
   * @throws ToolException {@code <name> must be a string or a list of strings}, or {@code
   *     <name>/<i> must be a string} for an element
   */
  public List<String> stringList(String name) {
    JsonNode value = value(name);
    List<String> out = new ArrayList<>();
    if (value == null) {
      return out;
    }
    if (value.isString()) {
      addText(out, name, value.stringValue());
      return out;
    }
    if (!value.isArray()) {
      throw ToolArgumentErrors.mustBe(name, "a string or a list of strings");
    }
    for (int i = 0; i < value.size(); i++) {
      JsonNode element = value.get(i);
      String field = ToolArgumentErrors.element(name, i);
      if (!element.isString()) {
        throw ToolArgumentErrors.mustBe(field, "a string");
      }
      addText(out, field, element.stringValue());
    }
    return out;
  }

  // ------------------------------------------------------------------ numbers, booleans

  /**
   * An integer argument within {@code min..max}, or {@code null} when absent.
   *
   * @throws ToolException {@code <name> must be an integer}, or {@code <name> must be between <min>
   *     and <max>, got <n>}
   */
  public Integer optionalInt(String name, int min, int max) {
    JsonNode value =
        value(name, given -> given.isIntegralNumber() && given.canConvertToInt(), "an integer");
    if (value == null) {
      return null;
    }
    int number = value.intValue();
    if (number < min || number > max) {
      throw ToolArgumentErrors.outOfRange(name, min, max, number);
    }
    return number;
  }

  /** As {@link #optionalInt(String, int, int)}, {@code fallback} when absent. */
  public int optionalInt(String name, int min, int max, int fallback) {
    Integer number = optionalInt(name, min, max);
    return number == null ? fallback : number;
  }

  /**
   * A number argument (integer or decimal) within {@code min..max}, {@code fallback} when absent.
   *
   * @throws ToolException {@code <name> must be a number}, or {@code <name> must be between <min>
   *     and <max>, got <n>}
   */
  public double optionalDouble(String name, double min, double max, double fallback) {
    JsonNode value = value(name, JsonNode::isNumber, "a number");
    if (value == null) {
      return fallback;
    }
    double number = value.doubleValue();
    if (!(number >= min && number <= max)) {
      throw ToolArgumentErrors.outOfRange(name, min, max, number);
    }
    return number;
  }

  /**
   * A boolean argument, or {@code null} when absent.
   *
   * @throws ToolException {@code <name> must be true or false}
   */
  public Boolean optionalBoolean(String name) {
    JsonNode value = value(name, JsonNode::isBoolean, "true or false");
    return value == null ? null : value.booleanValue();
  }

  /** As {@link #optionalBoolean(String)}, {@code fallback} when absent. */
  public boolean optionalBoolean(String name, boolean fallback) {
    Boolean value = optionalBoolean(name);
    return value == null ? fallback : value;
  }

  // ------------------------------------------------------------------ enums, times

  /**
   * A constant of {@code type} named by a text argument, in any case ({@code "team"} for {@code
   * TEAM}); {@code fallback} when absent or blank.
   *
   * @throws ToolException {@code <name> must be one of <constants>, got '<text>'}
   */
  public <E extends Enum<E>> E optionalEnum(String name, Class<E> type, E fallback) {
    String text = optionalText(name);
    if (text == null) {
      return fallback;
    }
    return Enums.named(type, text)
        .orElseThrow(
            () -> {
              String known =
                  Arrays.stream(type.getEnumConstants())
                      .map(c -> c.name().toLowerCase(Locale.ROOT))
                      .collect(Collectors.joining(", "));
              return ToolArgumentErrors.mustBe(
                  name, "one of " + known + ", got '" + clip(text) + "'");
            });
  }

  /**
   * A time given as an ISO instant ({@code 2026-03-02T10:00:00Z}) or an ISO date ({@code
   * 2026-03-02}, the start of that day in UTC); {@code null} when absent or blank.
   *
   * @throws ToolException {@code <name> must be an ISO date (...) or instant (...), got '<text>'}
   */
  public Instant optionalInstant(String name) {
    String text = optionalText(name);
    if (text == null) {
      return null;
    }
    try {
      return text.length() == 10
          ? LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant()
          : Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw ToolArgumentErrors.mustBe(
          name,
          "an ISO date (2026-03-02) or instant (2026-03-02T10:00:00Z), got '" + clip(text) + "'");
    }
  }

  // ------------------------------------------------------------------ helpers

  /** The value of an argument, {@code null} when absent or JSON null. */
  private JsonNode value(String name) {
    JsonNode value = node.get(Objects.requireNonNull(name, "name"));
    return value == null || value.isNull() ? null : value;
  }

  /**
   * The value of an argument, {@code null} when absent or JSON null.
   *
   * @throws ToolException {@code <name> must be <expected>} when it is given but not {@code is}
   */
  private JsonNode value(String name, Predicate<JsonNode> is, String expected) {
    JsonNode value = value(name);
    if (value != null && !is.test(value)) {
      throw ToolArgumentErrors.mustBe(name, expected);
    }
    return value;
  }

  private static void addText(List<String> out, String field, String text) {
    checked(field, text);
    if (!text.isBlank()) {
      out.add(text.strip());
    }
  }

  /** {@code text}, once it is known to hold no lone surrogate. */
  private static String checked(String field, String text) {
    int bad = Utf16.loneSurrogate(text);
    if (bad >= 0) {
      throw ToolArgumentErrors.invalid(
          field, "is not valid Unicode: a lone surrogate at index " + bad);
    }
    return text;
  }

  /** A caller's text repeated in a message, cut to a readable length. */
  private static String clip(String text) {
    int max = ToolArgumentErrors.MAX_NAME;
    if (text.length() <= max) {
      return text;
    }
    int cut = Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max;
    return text.substring(0, cut) + "…";
  }
}
