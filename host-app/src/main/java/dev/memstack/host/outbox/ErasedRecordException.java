package dev.memstack.host.outbox;

/**
 * A journal record was erased with its owner ({@link Journal#expunge}): its body is gone from
 * storage. A delivery skips it quietly; it is no damage.
 */
final class ErasedRecordException extends CorruptRecordException {

  private static final long serialVersionUID = 1L;

  ErasedRecordException(long position) {
    super("record " + position + " was erased with its owner");
  }
}
