package dev.memstack.host.api;

import dev.memstack.host.security.Caller;
import dev.memstack.host.security.Role;
import dev.memstack.host.stack.InvalidRequestException;
import dev.memstack.host.stack.RequestChecks;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.support.Utf16;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;

/**
 * Reads the fields of a JSON object request body with errors that name the field. Values are
 * checked for their JSON type here; their content is checked by the SPI records' constructors
 * through {@link #parse(String, Supplier)}.
 */
public final class JsonBody {

  private final JsonNode node;

  private JsonBody(JsonNode node) {
    this.node = node;
  }

  /**
   * @throws BadRequestException when the body is missing or not a JSON object
   */
  public static JsonBody of(JsonNode body) {
    if (body == null || body.isMissingNode() || body.isNull()) {
      throw new BadRequestException("body", "a JSON object request body is required");
    }
    if (!body.isObject()) {
      throw new BadRequestException("body", "the request body must be a JSON object");
    }
    return new JsonBody(body);
  }

  public JsonNode node() {
    return node;
  }

  /**
   * Refuses a body with a field outside {@code known}, naming the first such field (in the body's
   * order): generated clients rely on one rule for every route, and a misspelt field must not be
   * dropped in silence.
   */
  public JsonBody onlyFields(java.util.Set<String> known) {
    for (String name : node.propertyNames()) {
      if (name.isEmpty()) {
        throw new BadRequestException(
            "body",
            "a field with an empty name; this body takes " + new java.util.TreeSet<>(known));
      }
      if (!known.contains(name)) {
        throw new BadRequestException(
            name, "unknown field " + name + "; this body takes " + new java.util.TreeSet<>(known));
      }
    }
    return this;
  }

  /**
   * The owner a call acts for: {@code inBody} (the body's {@code ownerKey}, a string) or the {@code
   * ownerKey} query parameter; given both ways, the two must agree. {@code null} when neither is
   * given.
   */
  public static OwnerKey owner(JsonNode inBody, String ownerParam) {
    String fromBody = null;
    if (inBody != null && !inBody.isNull()) {
      if (!inBody.isString()) {
        throw new BadRequestException("ownerKey", "ownerKey must be a string");
      }
      fromBody = inBody.stringValue();
    }
    if (fromBody != null && ownerParam != null && !fromBody.equals(ownerParam)) {
      throw new BadRequestException(
          "ownerKey", "ownerKey in the body and in the query differ; give it once");
    }
    String key = fromBody != null ? fromBody : ownerParam;
    return key == null ? null : ownerKey(key);
  }

  /**
   * An owner key a request names, by the host's identifier rule ({@link RequestChecks#ownerKey}); a
   * bad one answers 400 naming {@code ownerKey}.
   */
  public static OwnerKey ownerKey(String key) {
    return RequestChecks.ownerKey("ownerKey", key);
  }

  /**
   * An owner key for a route that reaches memory already stored (erasure, export, the conversation
   * log): an admin may name a key by the SPI's older grammar ({@link
   * RequestChecks#storedOwnerKey}), so keys stored before the identifier rule stay erasable and
   * exportable; every other caller is held to the rule.
   */
  public static OwnerKey storedOwnerKey(String key, Caller caller) {
    return caller.role().includes(Role.ADMIN)
        ? RequestChecks.storedOwnerKey("ownerKey", key)
        : ownerKey(key);
  }

  /** A string field that must be present (it may be empty). */
  public String requiredString(String field) {
    String value = optionalString(field);
    if (value == null) {
      throw new BadRequestException(field, field + " is required");
    }
    return value;
  }

  /** A string field, or {@code null} when absent or JSON {@code null}. */
  public String optionalString(String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isString()) {
      throw new BadRequestException(field, field + " must be a string");
    }
    String text = value.stringValue();
    int bad = Utf16.loneSurrogate(text);
    if (bad >= 0) {
      throw new BadRequestException(
          field, field + " is not valid Unicode: a lone surrogate at index " + bad);
    }
    return text;
  }

  /** An integer field, or {@code fallback} when absent or JSON {@code null}. */
  public int optionalInt(String field, int fallback) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw new BadRequestException(field, field + " must be an integer");
    }
    return value.intValue();
  }

  /** A boolean field, or {@code fallback} when absent or JSON {@code null}. */
  public boolean optionalBoolean(String field, boolean fallback) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isBoolean()) {
      throw new BadRequestException(field, field + " must be true or false");
    }
    return value.booleanValue();
  }

  /**
   * Runs a parser (usually an SPI record constructor) and turns its {@link
   * IllegalArgumentException} or {@link NullPointerException} into a 400 naming {@code field}.
   */
  public static <T> T parse(String field, Supplier<T> parser) {
    return InvalidRequestException.check(field, parser);
  }

  /** The agent id of a path, checked; a bad one answers 400 naming {@code agentId}. */
  public static AgentId agent(String agentId) {
    return parse("agentId", () -> AgentId.of(agentId));
  }
}
