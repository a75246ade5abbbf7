package dev.memstack.client;

import java.util.List;

/**
 * The answer of {@code DELETE /api/v1/owners/{ownerKey}/memory}.
 *
 * @param ownerKey the erased owner
 * @param providers each provider's outcome
 * @param conversationTurnsRemoved turns removed from the host's conversation log
 */
public record Erasure(
    String ownerKey, List<ProviderErasure> providers, long conversationTurnsRemoved) {

  public Erasure {
    providers = providers == null ? List.of() : List.copyOf(providers);
  }

  /**
   * One provider's outcome.
   *
   * @param id the provider instance id
   * @param outcome {@code erased}, {@code queued} (runs when the provider can), {@code unsupported}
   *     or {@code error} (retried by the host)
   * @param removed records removed
   * @param droppedPending turns of the owner that were still waiting for delivery and were dropped
   * @param detail why, for {@code error} and {@code unsupported}; {@code null} otherwise
   */
  public record ProviderErasure(
      String id, String outcome, long removed, int droppedPending, String detail) {}
}
