package dev.memstack.host.mcp;

import dev.memstack.host.api.ApiError;
import dev.memstack.host.api.ApiExceptionHandler;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.method.annotation.ExceptionHandlerMethodResolver;

/**
 * Turns the failure of an MCP tool call into a tool result with {@code isError}, by the REST API's
 * own rules: the exception goes to the {@link ApiExceptionHandler} method that would answer it on a
 * REST route, so a tool sees the same message, field and status as a REST client. The text content
 * is the message (with the field, when one is at fault); the structured content is the REST error
 * body plus its HTTP {@code status}.
 */
final class McpToolErrors {

  private final ApiExceptionHandler handler;
  private final ExceptionHandlerMethodResolver resolver =
      new ExceptionHandlerMethodResolver(ApiExceptionHandler.class);

  McpToolErrors(ApiExceptionHandler handler) {
    this.handler = handler;
  }

  /** The error result for {@code failure}. */
  CallToolResult result(RuntimeException failure) {
    Method method = resolver.resolveMethodByThrowable(failure);
    if (method == null) {
      throw failure;
    }
    ReflectionUtils.makeAccessible(method);
    ResponseEntity<?> answer =
        (ResponseEntity<?>) ReflectionUtils.invokeMethod(method, handler, failure);
    ApiError error = (ApiError) answer.getBody();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", error.error());
    if (error.field() != null) {
      body.put("field", error.field());
    }
    body.put("message", error.message());
    body.put("status", answer.getStatusCode().value());
    String text = error.field() == null ? error.message() : error.field() + ": " + error.message();
    return CallToolResult.builder()
        .addTextContent(text)
        .structuredContent(body)
        .isError(true)
        .build();
  }
}
