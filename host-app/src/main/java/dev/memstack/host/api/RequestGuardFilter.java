package dev.memstack.host.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses, with an {@link ApiError} body and before any handler mapping sees them (Spring's and
 * Actuator's would fail with a server error): a path with a {@code .} or {@code ..} segment (400,
 * field {@code path}), and a {@code Content-Type} that is a wildcard ({@code *}{@code /*}, {@code
 * application/*}) or cannot be parsed (415).
 */
public final class RequestGuardFilter extends OncePerRequestFilter {

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (hasDotSegment(request.getRequestURI())) {
      refuse(
          response,
          HttpServletResponse.SC_BAD_REQUEST,
          ApiError.BAD_REQUEST,
          "path",
          "the path must not contain '.' or '..' segments");
      return;
    }
    String header = request.getContentType();
    if (header != null && !header.isBlank()) {
      String problem = null;
      try {
        MediaType type = MediaType.parseMediaType(header);
        if (type.isWildcardType() || type.isWildcardSubtype()) {
          problem = "Content-Type must name one type, not a wildcard";
        }
      } catch (InvalidMediaTypeException e) {
        problem = "Content-Type cannot be read";
      }
      if (problem != null) {
        refuse(
            response,
            HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE,
            ApiError.UNSUPPORTED_MEDIA_TYPE,
            "Content-Type",
            problem + "; send application/json");
        return;
      }
    }
    chain.doFilter(request, response);
  }

  /**
   * Whether the raw (undecoded) path has a {@code .} or {@code ..} segment, also percent-encoded.
   */
  static boolean hasDotSegment(String uri) {
    if (uri == null) {
      return false;
    }
    String path = uri.replace("%2e", ".").replace("%2E", ".");
    for (String segment : path.split("/", -1)) {
      int semicolon = segment.indexOf(';');
      String name = semicolon < 0 ? segment : segment.substring(0, semicolon);
      if (name.equals(".") || name.equals("..")) {
        return true;
      }
    }
    return false;
  }

  private static void refuse(
      HttpServletResponse response, int status, String error, String field, String message)
      throws IOException {
    byte[] body =
        ("{\"error\":\""
                + error
                + "\",\"field\":\""
                + field
                + "\",\"message\":"
                + JsonErrorReportValve.quote(message)
                + "}")
            .getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.setContentType("application/json");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
