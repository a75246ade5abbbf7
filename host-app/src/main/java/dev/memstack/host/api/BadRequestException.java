package dev.memstack.host.api;

import dev.memstack.host.stack.InvalidRequestException;

/**
 * A request the REST API refuses with 400 while reading it (a missing body, a field of the wrong
 * JSON type, an unknown field), naming the field at fault; the content of the fields is checked by
 * the request records, which throw the {@link InvalidRequestException} this class extends.
 */
public final class BadRequestException extends InvalidRequestException {

  private static final long serialVersionUID = 1L;

  public BadRequestException(String field, String message) {
    super(field, message);
  }
}
