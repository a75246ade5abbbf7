package dev.memstack.host.api;

import dev.memstack.host.chat.ChatModelMissingException;
import dev.memstack.host.chat.ConversationBusyException;
import dev.memstack.host.plugin.PluginNotFoundException;
import dev.memstack.host.plugin.PluginOperationException;
import dev.memstack.host.security.AccessDeniedException;
import dev.memstack.host.stack.InvalidRequestException;
import dev.memstack.outbox.TurnOutboxFullException;
import dev.memstack.spi.ToolException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.HttpMediaTypeException;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingPathVariableException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * Every error of the REST API as one JSON shape, {@link ApiError}: 400 for malformed JSON, missing
 * or invalid fields and oversize bodies (naming the field), 404 for unknown plugins, providers,
 * tools and routes, 403 when the caller's token does not allow the call (its role or owner binding;
 * 401 for a missing or wrong token comes earlier, from the security filter), 405 for a wrong
 * method, 409/403/503 for the matching tool failures (a tool's argument error is a 400 whose {@code
 * field} is the argument it names), 503 when a provider's turn queue is full, 502 when a provider
 * fails a tool call, 500 otherwise (logged, without details in the answer).
 */
@RestControllerAdvice
public class ApiExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

  @ExceptionHandler(InvalidRequestException.class)
  ResponseEntity<ApiError> badRequest(InvalidRequestException e) {
    return badRequest(e.field(), e.getMessage());
  }

  @ExceptionHandler(AccessDeniedException.class)
  ResponseEntity<ApiError> forbidden(AccessDeniedException e) {
    return answer(HttpStatus.FORBIDDEN, ApiError.FORBIDDEN, null, e.getMessage());
  }

  @ExceptionHandler(BodyTooLargeException.class)
  ResponseEntity<ApiError> tooLarge(BodyTooLargeException e) {
    return badRequest("body", e.getMessage());
  }

  @ExceptionHandler(HttpMessageNotReadableException.class)
  ResponseEntity<ApiError> unreadable(HttpMessageNotReadableException e) {
    BodyTooLargeException tooLarge = causeOf(e, BodyTooLargeException.class);
    if (tooLarge != null) {
      return tooLarge(tooLarge);
    }
    MismatchedInputException mismatch = causeOf(e, MismatchedInputException.class);
    if (mismatch != null && !mismatch.getPath().isEmpty()) {
      String field =
          mismatch.getPath().stream()
              .map(
                  r -> r.getPropertyName() != null ? r.getPropertyName() : "[" + r.getIndex() + "]")
              .collect(Collectors.joining("."));
      return badRequest(field, field + " has the wrong JSON type");
    }
    StreamReadException malformed = causeOf(e, StreamReadException.class);
    if (malformed != null) {
      return badRequest(
          "body",
          "malformed JSON: " + firstLine(malformed.getOriginalMessage()) + location(malformed));
    }
    JacksonException jackson = causeOf(e, JacksonException.class);
    String message =
        jackson != null
            ? "malformed JSON: " + firstLine(jackson.getOriginalMessage())
            : "a JSON object request body is required";
    return badRequest("body", message);
  }

  @ExceptionHandler(MethodArgumentTypeMismatchException.class)
  ResponseEntity<ApiError> typeMismatch(MethodArgumentTypeMismatchException e) {
    return badRequest(e.getName(), e.getName() + " is invalid");
  }

  @ExceptionHandler(MissingServletRequestParameterException.class)
  ResponseEntity<ApiError> missingParameter(MissingServletRequestParameterException e) {
    return badRequest(e.getParameterName(), e.getParameterName() + " is required");
  }

  @ExceptionHandler(MissingPathVariableException.class)
  ResponseEntity<ApiError> missingPathVariable(MissingPathVariableException e) {
    return badRequest(e.getVariableName(), e.getVariableName() + " is required");
  }

  @ExceptionHandler({NotFoundException.class, PluginNotFoundException.class})
  ResponseEntity<ApiError> notFound(RuntimeException e) {
    return notFound(e.getMessage());
  }

  @ExceptionHandler(NoHandlerFoundException.class)
  ResponseEntity<ApiError> noRoute(NoHandlerFoundException e) {
    return notFound("no route for " + e.getHttpMethod() + " " + e.getRequestURL());
  }

  @ExceptionHandler(NoResourceFoundException.class)
  ResponseEntity<ApiError> noResource(NoResourceFoundException e) {
    return notFound("no route for " + e.getHttpMethod() + " /" + e.getResourcePath());
  }

  @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
  ResponseEntity<ApiError> wrongMethod(HttpRequestMethodNotSupportedException e) {
    HttpHeaders headers = new HttpHeaders();
    if (e.getSupportedHttpMethods() != null) {
      headers.setAllow(e.getSupportedHttpMethods());
    }
    String allowed =
        e.getSupportedMethods() == null
            ? ""
            : " (allowed: " + String.join(", ", e.getSupportedMethods()) + ")";
    return answer(
        HttpStatus.METHOD_NOT_ALLOWED,
        headers,
        new ApiError(
            ApiError.METHOD_NOT_ALLOWED, null, e.getMethod() + " is not allowed here" + allowed));
  }

  /** A body that is not JSON (415), or an answer asked for in anything but JSON (406). */
  @ExceptionHandler({
    HttpMediaTypeNotSupportedException.class,
    HttpMediaTypeNotAcceptableException.class
  })
  ResponseEntity<ApiError> mediaType(HttpMediaTypeException e) {
    if (e instanceof HttpMediaTypeNotSupportedException unsupported) {
      return answer(
          HttpStatus.UNSUPPORTED_MEDIA_TYPE,
          ApiError.UNSUPPORTED_MEDIA_TYPE,
          null,
          "send the body as application/json"
              + (unsupported.getContentType() == null
                  ? ""
                  : ", not " + unsupported.getContentType()));
    }
    return answer(
        HttpStatus.NOT_ACCEPTABLE,
        ApiError.NOT_ACCEPTABLE,
        null,
        "this API answers application/json");
  }

  @ExceptionHandler(ToolException.class)
  ResponseEntity<ApiError> tool(ToolException e) {
    return switch (e.kind()) {
      case INVALID_ARGUMENT -> badRequest(e.field(), e.getMessage());
      case NOT_FOUND -> notFound(e.getMessage());
      case CONFLICT -> answer(HttpStatus.CONFLICT, ApiError.CONFLICT, null, e.getMessage());
      case FORBIDDEN -> answer(HttpStatus.FORBIDDEN, ApiError.FORBIDDEN, null, e.getMessage());
      case UNAVAILABLE ->
          answer(HttpStatus.SERVICE_UNAVAILABLE, ApiError.UNAVAILABLE, null, e.getMessage());
    };
  }

  @ExceptionHandler({ChatModelMissingException.class, ConversationBusyException.class})
  ResponseEntity<ApiError> chatConflict(RuntimeException e) {
    return answer(HttpStatus.CONFLICT, ApiError.CONFLICT, null, e.getMessage());
  }

  /**
   * The {@link ApiError} of a failure that happens after a stream has started (a streamed chat's
   * {@code error} event): the body the same failure gets as an answer, or {@code internal}.
   */
  static ApiError errorOf(RuntimeException e) {
    if (e instanceof InvalidRequestException invalid) {
      return new ApiError(ApiError.BAD_REQUEST, invalid.field(), invalid.getMessage());
    }
    if (e instanceof ChatModelMissingException || e instanceof ConversationBusyException) {
      return new ApiError(ApiError.CONFLICT, null, e.getMessage());
    }
    if (e instanceof TurnOutboxFullException) {
      return new ApiError(ApiError.UNAVAILABLE, null, e.getMessage());
    }
    if (e instanceof AccessDeniedException) {
      return new ApiError(ApiError.FORBIDDEN, null, e.getMessage());
    }
    return new ApiError(
        ApiError.INTERNAL,
        null,
        "the chat failed (" + e.getClass().getSimpleName() + "); see the host log");
  }

  @ExceptionHandler(ConflictException.class)
  ResponseEntity<ApiError> conflict(ConflictException e) {
    return answer(HttpStatus.CONFLICT, ApiError.CONFLICT, null, e.getMessage());
  }

  @ExceptionHandler(java.io.UncheckedIOException.class)
  ResponseEntity<ApiError> storageUnavailable(java.io.UncheckedIOException e) {
    log.warn("Storage failed: {}", e.getMessage());
    HttpHeaders headers = new HttpHeaders();
    headers.set(HttpHeaders.RETRY_AFTER, "30");
    return answer(
        HttpStatus.SERVICE_UNAVAILABLE,
        headers,
        new ApiError(ApiError.UNAVAILABLE, null, "storage is unavailable right now; try again"));
  }

  @ExceptionHandler(TurnOutboxFullException.class)
  ResponseEntity<ApiError> outboxFull(TurnOutboxFullException e) {
    HttpHeaders headers = new HttpHeaders();
    headers.set(HttpHeaders.RETRY_AFTER, "30");
    return answer(
        HttpStatus.SERVICE_UNAVAILABLE,
        headers,
        new ApiError(ApiError.UNAVAILABLE, null, e.getMessage()));
  }

  @ExceptionHandler(PluginOperationException.class)
  ResponseEntity<ApiError> pluginFailed(PluginOperationException e) {
    log.warn("Plugin operation failed: {}", e.getMessage());
    return answer(HttpStatus.INTERNAL_SERVER_ERROR, ApiError.PLUGIN_FAILED, null, e.getMessage());
  }

  @ExceptionHandler(ProviderFailedException.class)
  ResponseEntity<ApiError> providerFailed(ProviderFailedException e) {
    log.warn("{}", e.getMessage(), e.getCause());
    return answer(HttpStatus.BAD_GATEWAY, ApiError.PROVIDER_FAILED, null, e.getMessage());
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<ApiError> internal(Exception e) {
    log.error("Request failed", e);
    return answer(
        HttpStatus.INTERNAL_SERVER_ERROR,
        ApiError.INTERNAL,
        null,
        "internal error (" + e.getClass().getSimpleName() + "); see the host log");
  }

  private static ResponseEntity<ApiError> badRequest(String field, String message) {
    return answer(HttpStatus.BAD_REQUEST, ApiError.BAD_REQUEST, field, message);
  }

  private static ResponseEntity<ApiError> notFound(String message) {
    return answer(HttpStatus.NOT_FOUND, ApiError.NOT_FOUND, null, message);
  }

  private static ResponseEntity<ApiError> answer(
      HttpStatus status, String error, String field, String message) {
    return answer(status, new HttpHeaders(), new ApiError(error, field, message));
  }

  private static ResponseEntity<ApiError> answer(
      HttpStatus status, HttpHeaders headers, ApiError body) {
    return ResponseEntity.status(status)
        .headers(headers)
        .contentType(MediaType.APPLICATION_JSON)
        .body(body);
  }

  private static <T extends Throwable> T causeOf(Throwable e, Class<T> type) {
    int depth = 0;
    for (Throwable t = e; t != null && depth < 20; t = t.getCause(), depth++) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static String location(StreamReadException e) {
    return e.getLocation() == null
        ? ""
        : " (line "
            + e.getLocation().getLineNr()
            + ", column "
            + e.getLocation().getColumnNr()
            + ")";
  }
}
