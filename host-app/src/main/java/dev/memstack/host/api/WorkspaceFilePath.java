package dev.memstack.host.api;

import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The workspace file a {@code .../workspace/files/{path}} request names, read from the raw request
 * URI (the servlet container has already normalised its own decoded copy, turning {@code
 * a/%2e%2e/b.md} into {@code b.md}). The raw rest of the path is percent-decoded once, strictly
 * (UTF-8, every {@code %} followed by two hex digits), and refused with 400 naming {@code path}
 * when it is empty, absolute, has a drive letter, a backslash, a NUL or other control character, a
 * {@code .} or {@code ..} segment, an empty segment, or is still percent-encoded after decoding
 * (encoded twice). Everything else (the {@code .md} suffix, reserved names, lengths) is the
 * provider's rule and its answer.
 */
final class WorkspaceFilePath {

  /** Path segments before the file path: {@code api, v1, agents, {agentId}, workspace, files}. */
  static final int ROUTE_SEGMENTS = 6;

  static final String FIELD = "path";

  private WorkspaceFilePath() {}

  /** The decoded, checked file path of a request routed to {@code .../workspace/files/**}. */
  static String of(HttpServletRequest request) {
    String uri = request.getRequestURI();
    String context = request.getContextPath();
    if (context != null && !context.isEmpty() && uri.startsWith(context)) {
      uri = uri.substring(context.length());
    }
    // "/api/v1/agents/a1/workspace/files/x/y.md" splits into "", api, v1, agents, a1, workspace,
    // files, x, y.md; the router matched the first six segments, so the rest is the file path
    List<String> segments = Arrays.asList(uri.split("/", -1));
    if (segments.size() <= ROUTE_SEGMENTS + 1) {
      throw invalid("path is required: name a file after .../workspace/files/");
    }
    return decode(String.join("/", segments.subList(ROUTE_SEGMENTS + 1, segments.size())));
  }

  /** Decodes and checks the raw (still percent-encoded) file path. */
  static String decode(String raw) {
    if (raw.isEmpty()) {
      throw invalid("path is required: name a file after .../workspace/files/");
    }
    String path = percentDecode(raw);
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
        throw invalid("path must not contain NUL or other control characters");
      }
      if (c == '\\') {
        throw invalid("path must not contain backslashes; separate folders with /");
      }
    }
    if (path.startsWith("/")) {
      throw invalid("path must be relative to the workspace, not absolute: " + path);
    }
    if (path.length() >= 2 && path.charAt(1) == ':' && Character.isLetter(path.charAt(0))) {
      throw invalid("path must not start with a drive letter: " + path);
    }
    if (path.matches("(?s).*%[0-9A-Fa-f]{2}.*")) {
      throw invalid("path is percent-encoded twice: " + raw);
    }
    for (String segment : path.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        throw invalid("path must not contain '.' or '..' segments: " + path);
      }
      if (segment.isEmpty()) {
        throw invalid("path must not contain empty segments (//) or end with /: " + path);
      }
    }
    return path;
  }

  /** Strict percent-decoding of a URI path: UTF-8, {@code +} is a plus sign. */
  private static String percentDecode(String raw) {
    if (raw.indexOf('%') < 0) {
      return raw;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c != '%') {
        byte[] plain = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(plain, 0, plain.length);
        continue;
      }
      if (i + 2 >= raw.length()
          || Character.digit(raw.charAt(i + 1), 16) < 0
          || Character.digit(raw.charAt(i + 2), 16) < 0) {
        throw invalid(
            "path has an invalid percent-encoding (% must be followed by two hex digits)");
      }
      bytes.write(
          Character.digit(raw.charAt(i + 1), 16) * 16 + Character.digit(raw.charAt(i + 2), 16));
      i += 2;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw invalid("path is not valid UTF-8 once percent-decoded");
    }
  }

  private static BadRequestException invalid(String message) {
    return new BadRequestException(FIELD, message);
  }
}
