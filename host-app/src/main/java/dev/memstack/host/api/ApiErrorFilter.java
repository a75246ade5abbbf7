package dev.memstack.host.api;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * A filter in front of the API that answers some requests itself, before any handler: with an
 * {@link ApiError} body, as the API's error handler would ({@link RequestGuardFilter}, {@link
 * BodySizeLimitFilter}, {@link EmptyErrorBodyFilter}).
 */
abstract class ApiErrorFilter extends OncePerRequestFilter {

  private final JsonMapper json;

  ApiErrorFilter(JsonMapper json) {
    this.json = json;
  }

  /** Answers {@code status} with {@code error} as the JSON body. */
  final void answer(HttpServletResponse response, int status, ApiError error) throws IOException {
    byte[] body = json.writeValueAsBytes(error);
    response.setStatus(status);
    response.setContentType(MediaType.APPLICATION_JSON_VALUE);
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
