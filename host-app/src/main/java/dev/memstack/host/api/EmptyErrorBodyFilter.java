package dev.memstack.host.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.util.ContentCachingResponseWrapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Gives an {@link ApiError} body to an error answered with none: Actuator answers an unknown health
 * component or group ({@code /actuator/health/nope}) with a bare 404 that neither the container's
 * error report nor {@code /error} sees, since no error was sent. An error sent with {@code
 * sendError} is left to them, and a body an endpoint wrote (a health status that is DOWN) is kept.
 */
public final class EmptyErrorBodyFilter extends ApiErrorFilter {

  public EmptyErrorBodyFilter(JsonMapper json) {
    super(json);
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    Recording recording = new Recording(response);
    try {
      chain.doFilter(request, recording);
    } finally {
      int status = recording.getStatus();
      if (status >= 400 && !recording.errorSent && recording.getContentSize() == 0) {
        answer(
            recording,
            status,
            new ApiError(ErrorCodes.code(status), null, ErrorCodes.message(status)));
      }
      recording.copyBodyToResponse();
    }
  }

  /** Buffers the answer and notes whether an error was sent. */
  private static final class Recording extends ContentCachingResponseWrapper {

    private boolean errorSent;

    Recording(HttpServletResponse response) {
      super(response);
    }

    @Override
    public void sendError(int status) throws IOException {
      errorSent = true;
      super.sendError(status);
    }

    @Override
    public void sendError(int status, String message) throws IOException {
      errorSent = true;
      super.sendError(status, message);
    }
  }
}
