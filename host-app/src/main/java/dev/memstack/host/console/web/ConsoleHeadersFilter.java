package dev.memstack.host.console.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The security headers of every answer under {@code /console}: a content security policy that lets
 * the page load its own scripts, styles and API answers only (no inline script, no inline event
 * handler, no third-party request, no framing), {@code X-Content-Type-Options: nosniff}, no
 * referrer and no framing for browsers that predate {@code frame-ancestors}.
 */
public final class ConsoleHeadersFilter extends OncePerRequestFilter {

  /** The console's content security policy. */
  public static final String POLICY =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src"
          + " 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self';"
          + " frame-ancestors 'none'";

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    response.setHeader("Content-Security-Policy", POLICY);
    response.setHeader("X-Content-Type-Options", "nosniff");
    response.setHeader("X-Frame-Options", "DENY");
    response.setHeader("Referrer-Policy", "no-referrer");
    response.setHeader("Cross-Origin-Opener-Policy", "same-origin");
    chain.doFilter(request, response);
  }
}
