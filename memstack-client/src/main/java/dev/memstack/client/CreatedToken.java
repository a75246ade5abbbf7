package dev.memstack.client;

import java.time.Instant;

/**
 * A token {@code POST /api/v1/tokens} just made. Its {@code token} is in this answer only: the host
 * keeps a salted digest of it, so keep it now.
 *
 * @param id the token's id (what {@link MemstackClient#revokeToken} takes)
 * @param name what it is called
 * @param role {@code VIEWER}, {@code MEMBER} or {@code ADMIN}
 * @param owner its owner binding, or {@code null} for any owner
 * @param createdAt when it was made
 * @param token the bearer token, {@code ms_<id>_<secret>}
 */
public record CreatedToken(
    String id, String name, String role, String owner, Instant createdAt, String token) {

  /** Never shows the token. */
  @Override
  public String toString() {
    return "CreatedToken[id=" + id + ", name=" + name + ", role=" + role + ", owner=" + owner + "]";
  }
}
