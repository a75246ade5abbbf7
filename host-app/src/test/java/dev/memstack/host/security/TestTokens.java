package dev.memstack.host.security;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * API tokens for tests that start the host: one unbound admin token, configured through the same
 * {@code memstack.security.tokens} list a deployment uses.
 */
public final class TestTokens {

  /** An admin token for any owner. */
  public static final String ADMIN = "test-admin-token-0123456789abcdef";

  private TestTokens() {}

  /** Configures {@link #ADMIN} as the host's only token. */
  public static void admin(DynamicPropertyRegistry registry) {
    registry.add("memstack.security.tokens[0].token", () -> ADMIN);
    registry.add("memstack.security.tokens[0].role", () -> "admin");
  }

  /** The header value that sends {@code token}. */
  public static String bearer(String token) {
    return "Bearer " + token;
  }
}
