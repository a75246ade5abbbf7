package dev.memstack.host.security;

import java.util.List;

/**
 * The rules of the paths outside {@code /api} that {@link BearerTokenFilter} applies itself: paths
 * open without a token (the health status, the OpenAPI document and its UI, which hold no data) and
 * paths that need an {@code admin} token (the Prometheus scrape, which names every provider and its
 * backlog). A rule covers its path and everything below it ({@code /swagger-ui} covers {@code
 * /swagger-ui/index.html}).
 *
 * @param open paths answered without a token; a token, when sent, must still be valid
 * @param admin paths that need an admin token ({@code 403} for any other valid token)
 */
public record PathRules(List<String> open, List<String> admin) {

  public PathRules {
    open = List.copyOf(open);
    admin = List.copyOf(admin);
  }

  /** Whether {@code path} is answered without a token. */
  public boolean isOpen(String path) {
    return covers(open, path);
  }

  /** Whether {@code path} needs an admin token. */
  public boolean needsAdmin(String path) {
    return covers(admin, path);
  }

  private static boolean covers(List<String> rules, String path) {
    for (String rule : rules) {
      if (path.equals(rule) || path.startsWith(rule + "/")) {
        return true;
      }
    }
    return false;
  }
}
