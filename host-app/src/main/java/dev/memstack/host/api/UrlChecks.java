package dev.memstack.host.api;

import java.io.ByteArrayOutputStream;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/** The checks {@link RequestGuardFilter} makes on a request's raw (undecoded) path and query. */
final class UrlChecks {

  private UrlChecks() {}

  /** What is wrong with the raw path, or {@code null}. */
  static String pathProblem(String uri) {
    if (uri == null) {
      return null;
    }
    if (hasDotSegment(uri)) {
      return "the path must not contain '.' or '..' segments";
    }
    if (uri.indexOf(';') >= 0) {
      return "the path must not contain ';' (no path parameters)";
    }
    if (!validUtf8(uri)) {
      return "the path is not valid percent-encoded UTF-8";
    }
    return null;
  }

  /** Whether the raw path has a {@code .} or {@code ..} segment, also percent-encoded. */
  static boolean hasDotSegment(String uri) {
    String path = uri.replace("%2e", ".").replace("%2E", ".");
    for (String segment : path.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        return true;
      }
    }
    return false;
  }

  /** The first query parameter name given twice (decoded, at most 64 characters), or null. */
  static String repeatedParameter(String query) {
    if (query == null || query.isEmpty()) {
      return null;
    }
    Set<String> seen = new HashSet<>();
    for (String pair : query.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int equals = pair.indexOf('=');
      String name = equals < 0 ? pair : pair.substring(0, equals);
      String decoded;
      try {
        decoded = URLDecoder.decode(name, StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        decoded = name;
      }
      if (!seen.add(decoded)) {
        return decoded.length() > 64 ? decoded.substring(0, 64) : decoded;
      }
    }
    return null;
  }

  /**
   * Whether the percent-encoded bytes and raw characters of {@code text} form valid UTF-8: no
   * overlong forms (such as {@code %C0%AF} for {@code /}), no lone continuation bytes, no encoded
   * surrogates, no truncated sequences, no {@code %} without two hex digits.
   */
  static boolean validUtf8(String text) {
    if (text == null) {
      return true;
    }
    boolean plain = true;
    for (int i = 0; i < text.length() && plain; i++) {
      char c = text.charAt(i);
      plain = c != '%' && c < 0x80;
    }
    if (plain) {
      return true;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%') {
        if (i + 2 >= text.length()) {
          return false;
        }
        int high = Character.digit(text.charAt(i + 1), 16);
        int low = Character.digit(text.charAt(i + 2), 16);
        if (high < 0 || low < 0) {
          return false;
        }
        bytes.write(high * 16 + low);
        i += 2;
      } else if (c < 0x100) {
        // the container hands raw request-line bytes over as ISO-8859-1 characters
        bytes.write(c);
      } else {
        return false;
      }
    }
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
