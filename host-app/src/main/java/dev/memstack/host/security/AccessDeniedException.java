package dev.memstack.host.security;

/**
 * The caller's token is valid but does not allow this request (its role, or its owner binding):
 * answered {@code 403} with {@code {"error":"forbidden","message":...}}. The message says which
 * role or owner was needed and never shows a token.
 */
public final class AccessDeniedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public AccessDeniedException(String message) {
    super(message, null, false, false);
  }
}
