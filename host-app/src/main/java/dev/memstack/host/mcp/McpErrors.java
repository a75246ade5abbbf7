package dev.memstack.host.mcp;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes the MCP endpoint's error answers as JSON-RPC error objects ({@code {"jsonrpc":"2.0",
 * "id":…, "error":{"code":…, "message":…}}}) with a short message, and reads what the transport
 * wrote for an error into one.
 */
final class McpErrors {

  private static final int LONGEST_MESSAGE = 200;

  private final JsonMapper json;

  McpErrors(JsonMapper json) {
    this.json = json;
  }

  /** Writes one error object with {@code status}; {@code id} may be {@code null}. */
  void write(HttpServletResponse response, int status, JsonNode id, int code, String message)
      throws IOException {
    ObjectNode body = json.createObjectNode();
    body.put("jsonrpc", "2.0");
    body.set("id", id == null ? body.nullNode() : id);
    ObjectNode error = body.putObject("error");
    error.put("code", code);
    error.put("message", message);
    byte[] bytes = json.writeValueAsBytes(body);
    response.setStatus(status);
    response.setContentType("application/json");
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }

  /**
   * The error object for what the transport wrote with {@code status}: its JSON-RPC code and short
   * message where it wrote one (a serialized {@code McpError} or an error object), else a code and
   * message for the status alone. Stack traces and exception fields are never copied.
   */
  void rewrite(HttpServletResponse response, int status, byte[] written, String reason)
      throws IOException {
    int code = status >= 500 ? JsonRpcCheck.INTERNAL_ERROR : JsonRpcCheck.INVALID_REQUEST;
    String message = null;
    JsonNode error = parse(written);
    if (error != null) {
      JsonNode detail =
          error.get("jsonRpcError") != null ? error.get("jsonRpcError") : error.get("error");
      if (detail != null && detail.isObject()) {
        if (detail.get("code") != null && detail.get("code").isInt()) {
          code = detail.get("code").intValue();
        }
        message = shortText(detail.get("message"));
      }
    }
    if (message == null) {
      message = shortText(reason);
    }
    write(response, status, null, code, message == null ? forStatus(status) : message);
  }

  private JsonNode parse(byte[] written) {
    if (written.length == 0) {
      return null;
    }
    try {
      JsonNode node = json.readTree(written);
      return node != null && node.isObject() ? node : null;
    } catch (JacksonException e) {
      return null;
    }
  }

  private static String shortText(JsonNode node) {
    return node != null && node.isString() ? shortText(node.stringValue()) : null;
  }

  private static String shortText(String text) {
    if (text == null
        || text.isBlank()
        || text.length() > LONGEST_MESSAGE
        || text.contains("\tat ")) {
      return null;
    }
    return text;
  }

  static String forStatus(int status) {
    return switch (status) {
      case 400 -> "bad request";
      case 404 -> "not found";
      case 405 -> "method not allowed on the MCP endpoint (POST, GET and DELETE are)";
      case 406 -> "not acceptable: send Accept: application/json, text/event-stream";
      case 415 -> "unsupported media type: send Content-Type: application/json";
      default ->
          status >= 500 ? "internal error; see the host log" : "request refused (" + status + ")";
    };
  }
}
