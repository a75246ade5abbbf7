package dev.memstack.outbox.journal;

import java.io.IOException;

/**
 * A journal record failed its checksum or could not be decoded: retrying will not help, so the
 * record is skipped (and logged) rather than retried forever.
 */
public class CorruptRecordException extends IOException {

  private static final long serialVersionUID = 1L;

  public CorruptRecordException(String message) {
    super(message);
  }
}
