package dev.memstack.host.api;

/**
 * The {@link ApiError} code and a plain message for an HTTP status, for the answers written outside
 * the controllers (the container's error report, {@code /error}, the filters).
 */
final class ErrorCodes {

  private ErrorCodes() {}

  static String code(int status) {
    return switch (status) {
      case 400 -> ApiError.BAD_REQUEST;
      case 401 -> ApiError.UNAUTHORIZED;
      case 403 -> ApiError.FORBIDDEN;
      case 404 -> ApiError.NOT_FOUND;
      case 405, 501 -> ApiError.METHOD_NOT_ALLOWED;
      case 406 -> ApiError.NOT_ACCEPTABLE;
      case 409 -> ApiError.CONFLICT;
      case 413, 414, 431 -> ApiError.BAD_REQUEST;
      case 415 -> ApiError.UNSUPPORTED_MEDIA_TYPE;
      case 503 -> ApiError.UNAVAILABLE;
      default -> status >= 500 ? ApiError.INTERNAL : ApiError.BAD_REQUEST;
    };
  }

  static String message(int status) {
    return switch (status) {
      case 400 ->
          "the request cannot be read: a malformed request line, path, header or body (encoded"
              + " '/', '\\\\' or NUL, or a character HTTP does not allow, in the path; a bad"
              + " Content-Length)";
      case 401 -> "a bearer token is required";
      case 403 -> "not allowed";
      case 404 -> "no such route";
      case 405 -> "this method is not allowed here";
      case 406 -> "this API answers application/json";
      case 413 -> "the request is too large";
      case 414 -> "the request line (URL) is too long";
      case 415 -> "send Content-Type: application/json";
      case 431 -> "the request headers are too large";
      case 501 -> "this method is not implemented by the host";
      case 503 -> "unavailable; try again later";
      default -> status >= 500 ? "internal error; see the host log" : "request refused";
    };
  }

  /** {@code text} when it is a short single line without a trace, else {@code null}. */
  static String shortLine(String text) {
    if (text == null || text.isBlank() || text.length() > 200) {
      return null;
    }
    if (text.contains("\n") || text.contains("Exception") || text.contains("<")) {
      return null;
    }
    return text;
  }
}
