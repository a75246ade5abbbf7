package dev.memstack.host.api;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /error} as the API's JSON, in place of Spring Boot's default body: an error forwarded by
 * the container answers with its own status and an {@link ApiError}; a request sent to {@code
 * /error} itself is a 404 like any other unknown route (never a 500 with {@code "status":999}).
 */
@RestController
public class JsonErrorController implements ErrorController {

  @RequestMapping(
      path = "${server.error.path:${error.path:/error}}",
      produces = MediaType.APPLICATION_JSON_VALUE)
  ResponseEntity<ApiError> error(HttpServletRequest request) {
    Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
    int status = code instanceof Integer value && value >= 400 ? value : 404;
    String message = null;
    if (code == null) {
      message = "no route for " + request.getMethod() + " " + request.getRequestURI();
    } else if (request.getAttribute(RequestDispatcher.ERROR_MESSAGE) instanceof String text) {
      message = ErrorCodes.shortLine(text);
    }
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_JSON)
        .body(
            new ApiError(
                ErrorCodes.code(status),
                null,
                message == null ? ErrorCodes.message(status) : message));
  }
}
