package dev.memstack.builtin.store.files;

import dev.memstack.spi.OwnerKey;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Turns owner keys into directory names and back. Lower-case letters, digits, {@code -} and {@code
 * _} stay as they are; every other UTF-8 byte becomes {@code %XX} (upper-case letters too, so keys
 * that differ only in case never share a directory on a case-insensitive file system): {@code
 * user:42} is {@code user%3A42}. A name longer than {@value #MAX_LENGTH} characters is cut and ends
 * in {@code ~} and a hash of the key; such a name is decoded through the key kept in the bucket's
 * metadata file.
 */
public final class OwnerDirectoryName {

  /** Longest directory name produced. */
  public static final int MAX_LENGTH = 120;

  private OwnerDirectoryName() {}

  /** The directory name of {@code owner}. */
  public static String encode(OwnerKey owner) {
    byte[] bytes = owner.value().getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
        out.append((char) c);
      } else {
        out.append('%').append(HexFormat.of().withUpperCase().toHexDigits((byte) c));
      }
    }
    if (out.length() <= MAX_LENGTH) {
      return out.toString();
    }
    return out.substring(0, 80) + "~" + sha256(owner.value()).substring(0, 32);
  }

  /** The owner key of a directory name, or empty when the name is hashed or not an encoding. */
  public static Optional<OwnerKey> decode(String name) {
    if (name.indexOf('~') >= 0) {
      return Optional.empty();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '%' && i + 2 < name.length()) {
        try {
          bytes.write(Integer.parseInt(name.substring(i + 1, i + 3), 16));
        } catch (NumberFormatException e) {
          return Optional.empty();
        }
        i += 2;
      } else if (c < 0x80) {
        bytes.write(c);
      } else {
        return Optional.empty();
      }
    }
    try {
      OwnerKey key = OwnerKey.of(bytes.toString(StandardCharsets.UTF_8));
      return encode(key).equals(name) ? Optional.of(key) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static String sha256(String text) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
