package dev.memstack.host.security;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Who may call the REST API ({@code memstack.security.*}). A wrong value stops the host at start
 * with a message that names the key and never the token.
 *
 * @param enabled whether {@code /api/**} and the Actuator (but for {@code /actuator/health}) need a
 *     bearer token; {@code false} lets every request through as an admin and logs a warning at
 *     start
 * @param tokens the API tokens, each with {@code token} (at least 16 characters, no whitespace),
 *     {@code role} ({@code viewer}, {@code member} or {@code admin}) and an optional {@code owner}
 *     binding (one owner key such as {@code api:42}, or a prefix such as {@code api:*}); from the
 *     environment as {@code MEMSTACK_SECURITY_TOKENS_0_TOKEN}, {@code
 *     MEMSTACK_SECURITY_TOKENS_0_ROLE}, {@code MEMSTACK_SECURITY_TOKENS_0_OWNER}. When empty, one
 *     admin token is generated on first start and kept in {@code <memstack.data-dir>/api-token}; in
 *     shared mode ({@code memstack.shared.jdbc-url} set) they are required and the start is refused
 *     without them, since a generated token would differ on every host
 */
@ConfigurationProperties("memstack.security")
public record SecurityProperties(@DefaultValue("true") boolean enabled, List<Token> tokens) {

  /** Shortest accepted configured token. */
  public static final int MIN_TOKEN_LENGTH = 16;

  public SecurityProperties {
    tokens = tokens == null ? List.of() : List.copyOf(new ArrayList<>(tokens));
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < tokens.size(); i++) {
      Token token = tokens.get(i);
      String key = key(i);
      if (token == null || token.token() == null || token.token().isBlank()) {
        throw new IllegalArgumentException(key + ".token is required");
      }
      String value = token.token();
      if (value.length() < MIN_TOKEN_LENGTH) {
        throw new IllegalArgumentException(
            key + ".token must have at least " + MIN_TOKEN_LENGTH + " characters");
      }
      for (int c = 0; c < value.length(); c++) {
        char ch = value.charAt(c);
        if (ch <= ' ' || ch > '~') {
          throw new IllegalArgumentException(
              key + ".token must be printable ASCII without whitespace (it travels in a header)");
        }
      }
      if (!seen.add(value)) {
        throw new IllegalArgumentException(key + ".token is the same as an earlier token");
      }
      if (token.role() == null) {
        throw new IllegalArgumentException(key + ".role is required: viewer, member or admin");
      }
      if (token.owner() != null) {
        try {
          OwnerBinding.of(token.owner());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(key + ".owner: " + e.getMessage());
        }
      }
    }
  }

  /** The settings of a host that checks tokens and has none configured. */
  public static SecurityProperties defaults() {
    return new SecurityProperties(true, List.of());
  }

  /** The configuration key of token {@code index}. */
  public static String key(int index) {
    return "memstack.security.tokens[" + index + "]";
  }

  @Override
  public String toString() {
    return "SecurityProperties[enabled=" + enabled + ", tokens=" + tokens + "]";
  }

  /**
   * One API token ({@code memstack.security.tokens[i].*}).
   *
   * @param token the secret the caller sends as {@code Authorization: Bearer <token>}; never logged
   *     or shown
   * @param role {@code viewer}, {@code member} or {@code admin}
   * @param owner the owner binding, or {@code null} for a token that may act for any owner
   */
  public record Token(String token, Role role, String owner) {

    /** The owner binding, or {@code null}. */
    public OwnerBinding binding() {
      return owner == null ? null : OwnerBinding.of(owner);
    }

    /** Never shows the token. */
    @Override
    public String toString() {
      return "Token[token=******, role=" + role + ", owner=" + owner + "]";
    }
  }
}
