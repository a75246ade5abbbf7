package dev.memstack.host.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * Authenticates every request by its {@code Authorization: Bearer <token>} header before anything
 * else reads it. A missing, malformed or unknown token answers {@code 401} with {@code
 * WWW-Authenticate: Bearer realm="memstack"} and {@code {"error":"unauthorized","message":...}}; a
 * known one makes its {@link Caller} the request's principal (request attribute {@link
 * Caller#ATTRIBUTE}, {@link HttpServletRequest#getUserPrincipal()}, {@link
 * HttpServletRequest#isUserInRole(String)}). The {@link PathRules#open open paths} need no token:
 * {@code /actuator/health} shows the status only without one (Actuator's {@code show-details:
 * when-authorized}), with a valid token the details too; {@code /v3/api-docs} and the Swagger UI
 * hold no data; a wrong token is refused there as well. The {@link PathRules#admin admin paths}
 * ({@code /actuator/prometheus}) answer {@code 403} to a valid token without the {@code admin}
 * role. With checking off every request is let through as {@link Caller#unchecked()}. Tokens are
 * never logged.
 */
public final class BearerTokenFilter extends OncePerRequestFilter {

  private static final Logger log = LoggerFactory.getLogger(BearerTokenFilter.class);
  private static final String CHALLENGE = "Bearer realm=\"memstack\"";

  private final BearerTokens tokens;
  private final PathRules paths;
  private final JsonMapper json;

  /**
   * @param tokens the known tokens, or {@link BearerTokens#off()}
   * @param paths the paths open without a token and those that need an admin token
   */
  public BearerTokenFilter(BearerTokens tokens, PathRules paths, JsonMapper json) {
    this.tokens = tokens;
    this.paths = paths;
    this.json = json;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (!tokens.checking()) {
      chain.doFilter(new CallerRequest(request, Caller.unchecked()), response);
      return;
    }
    String header = request.getHeader(HttpHeaders.AUTHORIZATION);
    if (header == null) {
      if (paths.isOpen(path(request))) {
        chain.doFilter(request, response);
        return;
      }
      refuse(
          request,
          response,
          CHALLENGE,
          "this call needs an API token: send 'Authorization: Bearer <token>'");
      return;
    }
    String token = bearerToken(header);
    if (token == null) {
      refuse(
          request,
          response,
          CHALLENGE + ", error=\"invalid_request\"",
          "only 'Authorization: Bearer <token>' is accepted");
      return;
    }
    Optional<Caller> caller = tokens.authenticate(token);
    if (caller.isEmpty()) {
      refuse(
          request,
          response,
          CHALLENGE + ", error=\"invalid_token\"",
          "the bearer token is not valid");
      return;
    }
    if (paths.needsAdmin(path(request)) && !caller.get().role().includes(Role.ADMIN)) {
      log.debug(
          "Refused {} to {}: not an admin token", request.getRequestURI(), caller.get().name());
      write(
          response,
          HttpServletResponse.SC_FORBIDDEN,
          new Refusal("forbidden", "this endpoint needs an admin token"));
      return;
    }
    chain.doFilter(new CallerRequest(request, caller.get()), response);
  }

  private static String path(HttpServletRequest request) {
    // the servlet path is decoded and normalised by the container: no "..", no ";params"
    return request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
  }

  /** The token of a {@code Bearer} header (scheme case-insensitive), or {@code null}. */
  static String bearerToken(String header) {
    String value = header.strip();
    int space = value.indexOf(' ');
    if (space < 0 || !value.substring(0, space).toLowerCase(Locale.ROOT).equals("bearer")) {
      return null;
    }
    String token = value.substring(space + 1).strip();
    return token.isEmpty() || token.indexOf(' ') >= 0 ? null : token;
  }

  private void refuse(
      HttpServletRequest request, HttpServletResponse response, String challenge, String message)
      throws IOException {
    log.debug(
        "Refused {} request from {}: {}", request.getMethod(), request.getRemoteAddr(), message);
    response.setHeader(HttpHeaders.WWW_AUTHENTICATE, challenge);
    write(response, HttpServletResponse.SC_UNAUTHORIZED, new Refusal("unauthorized", message));
  }

  private void write(HttpServletResponse response, int status, Refusal refusal) throws IOException {
    response.setStatus(status);
    response.setContentType(MediaType.APPLICATION_JSON_VALUE);
    response.getOutputStream().write(json.writeValueAsBytes(refusal));
  }

  /**
   * The body of a refusal, the shape of the REST API's error body ({@code
   * dev.memstack.host.api.ApiError}) without a field; written here so that security does not depend
   * on the api package.
   */
  private record Refusal(String error, String message) {}

  /** The request as seen past this filter: its caller is the principal. */
  private static final class CallerRequest extends HttpServletRequestWrapper {

    private final Caller caller;

    CallerRequest(HttpServletRequest request, Caller caller) {
      super(request);
      this.caller = caller;
      request.setAttribute(Caller.ATTRIBUTE, caller);
    }

    @Override
    public Principal getUserPrincipal() {
      return caller;
    }

    @Override
    public String getRemoteUser() {
      return caller.name();
    }

    @Override
    public String getAuthType() {
      return "Bearer";
    }

    @Override
    public boolean isUserInRole(String role) {
      for (Role candidate : Role.values()) {
        if (candidate.wireName().equalsIgnoreCase(role)) {
          return caller.role().includes(candidate);
        }
      }
      return false;
    }
  }
}
