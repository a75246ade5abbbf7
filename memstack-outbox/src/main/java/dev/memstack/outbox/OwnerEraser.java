package dev.memstack.outbox;

import dev.memstack.spi.OwnerKey;

/**
 * Erases one owner in every configured provider and drops the owner's turns that are still waiting
 * for delivery. Implementations are thread-safe.
 */
public interface OwnerEraser {

  /**
   * Erases {@code owner} everywhere: every provider's outcome is in the answer; a provider that
   * cannot be reached now is erased later where the implementation can queue it.
   *
   * @throws dev.memstack.outbox.TurnOutboxFullException when the erasure cannot be recorded (the
   *     journal cannot be written); nothing was changed then
   */
  OwnerErasure erase(OwnerKey owner);
}
