package dev.memstack.host.mcp;

import java.math.BigInteger;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Checks one JSON-RPC message posted to the MCP endpoint before the transport sees it, so that a
 * malformed message gets JSON-RPC's own error code at once instead of a server error or no answer:
 * parse error (-32700), invalid request (-32600: not an object, {@code jsonrpc} not "2.0", an
 * {@code id} that is not a string or a 64-bit integer, a {@code method} that is not a string),
 * method not found (-32601, for a request whose method MCP does not define) and invalid params
 * (-32602: {@code params} not an object; {@code initialize} without its fields; {@code tools/call}
 * without a tool name or with {@code arguments} that are not an object).
 */
final class JsonRpcCheck {

  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int METHOD_NOT_FOUND = -32601;
  static final int INVALID_PARAMS = -32602;
  static final int INTERNAL_ERROR = -32603;

  /** The requests MCP defines (a client's requests to a server). */
  static final Set<String> REQUESTS =
      Set.of(
          "initialize",
          "ping",
          "tools/list",
          "tools/call",
          "resources/list",
          "resources/read",
          "resources/templates/list",
          "resources/subscribe",
          "resources/unsubscribe",
          "prompts/list",
          "prompts/get",
          "completion/complete",
          "logging/setLevel");

  private static final BigInteger MIN_ID = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX_ID = BigInteger.valueOf(Long.MAX_VALUE);

  /** What to do with a message: pass it on, ignore it (202), or answer it with an error. */
  sealed interface Verdict permits Pass, Ignore, Refuse {}

  /** A well-formed message for the transport. */
  record Pass(boolean initialize) implements Verdict {}

  /** A notification MCP does not define: accepted and dropped, as JSON-RPC asks. */
  record Ignore() implements Verdict {}

  /**
   * A message answered here.
   *
   * @param id the request's id when it could be read, else {@code null}
   * @param httpStatus 400 for a message that is not a valid request, 200 for a valid request of an
   *     unknown method
   */
  record Refuse(JsonNode id, int code, String message, int httpStatus) implements Verdict {}

  private final JsonMapper json;

  JsonRpcCheck(JsonMapper json) {
    this.json = json;
  }

  Verdict check(byte[] body) {
    JsonNode message;
    try {
      message = json.readTree(body);
    } catch (JacksonException | IllegalArgumentException e) {
      return new Refuse(null, PARSE_ERROR, "parse error: the body is not valid JSON", 400);
    }
    if (message == null || !message.isObject()) {
      return invalid(null, "a JSON-RPC message must be one JSON object");
    }
    JsonNode id = message.get("id");
    JsonNode readableId = validId(id) ? id : null;
    if (!"2.0".equals(text(message.get("jsonrpc")))) {
      return invalid(readableId, "\"jsonrpc\" must be \"2.0\"");
    }
    if (id != null && !validId(id)) {
      return invalid(null, "\"id\" must be a string or an integer (64-bit)");
    }
    JsonNode method = message.get("method");
    if (method == null) {
      if (id == null || (message.get("result") == null) == (message.get("error") == null)) {
        return invalid(
            readableId,
            "a message needs a \"method\", or an \"id\" and one of \"result\" and \"error\"");
      }
      return new Pass(false);
    }
    if (!method.isString()) {
      return invalid(readableId, "\"method\" must be a string");
    }
    JsonNode params = message.get("params");
    if (params != null && !params.isObject()) {
      return params(readableId, "\"params\" must be an object");
    }
    String name = method.stringValue();
    if (id == null) {
      return name.startsWith("notifications/") ? new Pass(false) : new Ignore();
    }
    if (!REQUESTS.contains(name)) {
      return new Refuse(id, METHOD_NOT_FOUND, "method not found: " + shorten(name), 200);
    }
    return switch (name) {
      case "initialize" -> initialize(id, params);
      case "tools/call" -> toolCall(id, params);
      default -> new Pass(false);
    };
  }

  private static Verdict initialize(JsonNode id, JsonNode params) {
    if (params == null) {
      return params(id, "initialize needs \"params\"");
    }
    JsonNode version = params.get("protocolVersion");
    if (version == null || !version.isString()) {
      return params(id, "initialize needs \"params.protocolVersion\" (a string)");
    }
    for (String field : new String[] {"capabilities", "clientInfo"}) {
      JsonNode value = params.get(field);
      if (value != null && !value.isObject()) {
        return params(id, "\"params." + field + "\" must be an object");
      }
    }
    return new Pass(true);
  }

  private static Verdict toolCall(JsonNode id, JsonNode params) {
    JsonNode name = params == null ? null : params.get("name");
    if (name == null || !name.isString()) {
      return params(id, "tools/call needs \"params.name\" (a string)");
    }
    JsonNode arguments = params.get("arguments");
    if (arguments != null && !arguments.isNull() && !arguments.isObject()) {
      return params(id, "\"params.arguments\" must be an object");
    }
    return new Pass(false);
  }

  private static boolean validId(JsonNode id) {
    if (id == null) {
      return false;
    }
    if (id.isString()) {
      return true;
    }
    if (!id.isIntegralNumber()) {
      return false;
    }
    BigInteger value = id.bigIntegerValue();
    return value.compareTo(MIN_ID) >= 0 && value.compareTo(MAX_ID) <= 0;
  }

  private static Refuse invalid(JsonNode id, String message) {
    return new Refuse(id, INVALID_REQUEST, "invalid request: " + message, 400);
  }

  private static Refuse params(JsonNode id, String message) {
    return new Refuse(id, INVALID_PARAMS, "invalid params: " + message, 400);
  }

  private static String text(JsonNode node) {
    return node != null && node.isString() ? node.stringValue() : null;
  }

  private static String shorten(String name) {
    return name.length() <= 64 ? name : name.substring(0, 64) + "…";
  }
}
