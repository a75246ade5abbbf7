package dev.memstack.outbox.journal;

/**
 * A journal record was erased with its owner ({@link Journal#expunge}): its body is gone from
 * storage. A delivery skips it quietly; it is no damage.
 */
public final class ErasedRecordException extends CorruptRecordException {

  private static final long serialVersionUID = 1L;

  public ErasedRecordException(long position) {
    super("record " + position + " was erased with its owner");
  }
}
