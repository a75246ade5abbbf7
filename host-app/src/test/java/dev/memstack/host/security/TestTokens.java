package dev.memstack.host.security;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * API tokens for tests that start the host: one unbound admin token, configured through the same
 * {@code memstack.security.tokens} list a deployment uses.
 */
public final class TestTokens {

  /** An admin token for any owner. */
  public static final String ADMIN = "test-admin-token-0123456789abcdef";

  /** A token for the {@code viewer} role, bound to no owner. */
  public static final String VIEWER = "test-viewer-token-0123456789abcdef";

  /** A token for the {@code member} role, bound to no owner. */
  public static final String MEMBER = "test-member-token-0123456789abcdef";

  /** A token a host test binds to every owner of a prefix ({@code api:*}), as a platform's. */
  public static final String PLATFORM = "test-platform-token-0123456789abcdef";

  private TestTokens() {}

  /** Configures {@link #ADMIN} as the host's only token. */
  public static void admin(DynamicPropertyRegistry registry) {
    registry.add("memstack.security.tokens[0].token", () -> ADMIN);
    registry.add("memstack.security.tokens[0].role", () -> "admin");
  }

  /**
   * Configures {@code tokens} as the host's tokens, in order; each is {@code {token, role, owner}}
   * with a {@code null} owner for a token bound to no owner.
   */
  public static void configure(DynamicPropertyRegistry registry, String[]... tokens) {
    for (int i = 0; i < tokens.length; i++) {
      String[] token = tokens[i];
      registry.add(SecurityProperties.key(i) + ".token", () -> token[0]);
      registry.add(SecurityProperties.key(i) + ".role", () -> token[1]);
      if (token[2] != null) {
        registry.add(SecurityProperties.key(i) + ".owner", () -> token[2]);
      }
    }
  }

  /** The header value that sends {@code token}. */
  public static String bearer(String token) {
    return "Bearer " + token;
  }
}
