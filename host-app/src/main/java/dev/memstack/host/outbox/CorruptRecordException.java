package dev.memstack.host.outbox;

import java.io.IOException;

/**
 * A journal record failed its checksum or could not be decoded: retrying will not help, so the
 * record is skipped (and logged) rather than retried forever.
 */
class CorruptRecordException extends IOException {

  private static final long serialVersionUID = 1L;

  CorruptRecordException(String message) {
    super(message);
  }
}
