package dev.memstack.host.security;

import dev.memstack.support.Require;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;

/**
 * A managed API token as a store keeps it ({@link TokenStore}): the caller it makes (its name,
 * role, owner binding and id) and its secret only as a salted SHA-256 digest. The secret is 32
 * random bytes, so one round of SHA-256 over a random salt and the secret is as strong as a slow
 * hash here (there is no password to guess); the salt keeps equal digests from showing equal
 * secrets.
 *
 * @param caller the caller the token makes; its {@link Caller#tokenId()} is the token's id, the
 *     {@code <id>} of {@code ms_<id>_<secret>}
 * @param digest {@code <salt>:<hash>}, both base64: 16 random bytes, and SHA-256 over them and the
 *     secret's UTF-8 bytes
 * @param createdAt when it was made
 * @param lastUsedAt when a host last accepted it (written at most once a minute), or {@code null}
 */
public record StoredToken(Caller caller, String digest, Instant createdAt, Instant lastUsedAt) {

  private static final SecureRandom RANDOM = new SecureRandom();

  public StoredToken {
    Require.nonNull("caller digest createdAt", caller, digest, createdAt);
    if (caller.tokenId() == null || digest.indexOf(':') < 0) {
      throw new IllegalArgumentException("a stored token needs an id and a salted digest");
    }
  }

  /** A token for {@code caller} whose secret is {@code secret}, under a new random salt. */
  static StoredToken made(Caller caller, String secret, Instant at) {
    byte[] salt = new byte[16];
    RANDOM.nextBytes(salt);
    return new StoredToken(caller, digest(salt, secret), at, null);
  }

  /** The token's id. */
  public String id() {
    return caller.tokenId();
  }

  /** Whether {@code secret} is this token's, compared in constant time. */
  boolean matches(String secret) {
    byte[] salt = Base64.getDecoder().decode(digest.substring(0, digest.indexOf(':')));
    return MessageDigest.isEqual(
        digest.getBytes(StandardCharsets.US_ASCII),
        digest(salt, secret).getBytes(StandardCharsets.US_ASCII));
  }

  /** This token, last used at {@code at}. */
  StoredToken usedAt(Instant at) {
    return new StoredToken(caller, digest, createdAt, at);
  }

  private static String digest(byte[] salt, String secret) {
    try {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      sha256.update(salt);
      byte[] hash = sha256.digest(secret.getBytes(StandardCharsets.UTF_8));
      Base64.Encoder base64 = Base64.getEncoder();
      return base64.encodeToString(salt) + ":" + base64.encodeToString(hash);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  /** Never shows the digest. */
  @Override
  public String toString() {
    return "StoredToken[caller=" + caller + ", createdAt=" + createdAt + "]";
  }
}
