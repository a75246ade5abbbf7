package dev.memstack.host.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;

/**
 * A managed API token as a store keeps it ({@link TokenStore}): its id, name, role and owner
 * binding, and its secret only as a salted SHA-256 digest. The secret is 32 random bytes, so one
 * round of SHA-256 over a random salt and the secret is as strong as a slow hash here (there is no
 * password to guess); the salt keeps equal digests from showing equal secrets.
 *
 * @param id the token's id, the {@code <id>} of {@code ms_<id>_<secret>}; never {@code null}
 * @param name what its creator called it; never {@code null}
 * @param role what it may do; never {@code null}
 * @param owner the owners it may act for, or {@code null} for any owner
 * @param salt the random salt, base64; never {@code null}
 * @param hash SHA-256 over the salt's bytes and the secret's UTF-8 bytes, base64; never {@code
 *     null}
 * @param createdAt when it was made; never {@code null}
 * @param lastUsedAt when a host last accepted it (written at most once a minute), or {@code null}
 */
public record StoredToken(
    String id,
    String name,
    Role role,
    OwnerBinding owner,
    String salt,
    String hash,
    Instant createdAt,
    Instant lastUsedAt) {

  public StoredToken {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(salt, "salt");
    Objects.requireNonNull(hash, "hash");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** The digest a store keeps of {@code secret} under {@code salt} (base64). */
  static String digest(String salt, String secret) {
    try {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      sha256.update(Base64.getDecoder().decode(salt));
      return Base64.getEncoder()
          .encodeToString(sha256.digest(secret.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  /** Whether {@code secret} is this token's, compared in constant time. */
  boolean matches(String secret) {
    return MessageDigest.isEqual(
        Base64.getDecoder().decode(hash), Base64.getDecoder().decode(digest(salt, secret)));
  }

  /** The caller this token makes. */
  Caller caller() {
    return new Caller(name, role, owner, id);
  }

  /** This token, last used at {@code at}. */
  StoredToken usedAt(Instant at) {
    return new StoredToken(id, name, role, owner, salt, hash, createdAt, at);
  }

  /** Never shows the salt or the digest. */
  @Override
  public String toString() {
    return "StoredToken[id=" + id + ", name=" + name + ", role=" + role + ", owner=" + owner + "]";
  }
}
