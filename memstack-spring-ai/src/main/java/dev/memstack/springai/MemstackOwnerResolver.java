package dev.memstack.springai;

/**
 * Says which owner (end user) the chat memory of the current call belongs to, for a {@link
 * MemstackChatMemoryRepository} that serves more than one user: typically read from the request's
 * security context. Called on the thread that uses the chat memory.
 */
@FunctionalInterface
public interface MemstackOwnerResolver {

  /**
   * The owner key of the current call ({@code user:42}); never {@code null} or blank.
   *
   * @throws IllegalStateException when the current call has no owner
   */
  String ownerKey();
}
