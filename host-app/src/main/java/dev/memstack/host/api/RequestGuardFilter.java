package dev.memstack.host.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * Refuses, with an {@link ApiError} body and before any handler mapping sees them: a path with a
 * {@code .} or {@code ..} segment, a {@code ;} (path parameters, which Spring would drop: {@code
 * a;b} served as {@code a}) or bytes that are not UTF-8 (an overlong {@code %C0%AF} read as {@code
 * /}) (400, field {@code path}); a query parameter of the REST API ({@code /api/}) given twice
 * (400, the parameter as field: Spring would join the values with a comma into a new owner key) or
 * a query string that is not UTF-8; and a {@code Content-Type} that is a wildcard ({@code *}{@code
 * /*}, {@code application/*}) or cannot be parsed (415).
 */
public final class RequestGuardFilter extends ApiErrorFilter {

  public RequestGuardFilter(JsonMapper json) {
    super(json);
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String problem = UrlChecks.pathProblem(request.getRequestURI());
    String field = "path";
    if (problem == null) {
      // the REST API's parameters are single-valued; Actuator's own (metrics' tag=a:b&tag=c:d) may
      // repeat
      String repeated =
          request.getRequestURI().startsWith("/api/")
              ? UrlChecks.repeatedParameter(request.getQueryString())
              : null;
      if (repeated != null) {
        field = repeated;
        problem = repeated + " is given more than once";
      } else if (!UrlChecks.validUtf8(request.getQueryString())) {
        field = "query";
        problem = "the query string is not valid percent-encoded UTF-8";
      }
    }
    if (problem != null) {
      answer(
          response,
          HttpServletResponse.SC_BAD_REQUEST,
          new ApiError(ApiError.BAD_REQUEST, field, problem));
      return;
    }
    String header = request.getContentType();
    if (header != null && !header.isBlank()) {
      String typeProblem = null;
      try {
        MediaType type = MediaType.parseMediaType(header);
        if (type.isWildcardType() || type.isWildcardSubtype()) {
          typeProblem = "Content-Type must name one type, not a wildcard";
        }
      } catch (InvalidMediaTypeException e) {
        typeProblem = "Content-Type cannot be read";
      }
      if (typeProblem != null) {
        answer(
            response,
            HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE,
            new ApiError(
                ApiError.UNSUPPORTED_MEDIA_TYPE,
                "Content-Type",
                typeProblem + "; send application/json"));
        return;
      }
    }
    chain.doFilter(request, response);
  }
}
