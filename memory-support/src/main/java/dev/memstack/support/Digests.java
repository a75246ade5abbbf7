package dev.memstack.support;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of a text (UTF-8): token digests, names that must not show the text they stand for. */
public final class Digests {

  private Digests() {}

  /** The SHA-256 digest of {@code text} as UTF-8. */
  public static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  /** The SHA-256 digest of {@code text} as UTF-8, in lower-case hex (64 characters). */
  public static String sha256Hex(String text) {
    return HexFormat.of().formatHex(sha256(text));
  }
}
