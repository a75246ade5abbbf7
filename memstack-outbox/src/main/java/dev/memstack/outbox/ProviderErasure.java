package dev.memstack.outbox;

import java.util.Objects;
import java.util.Set;

/**
 * How one provider took an owner erasure.
 *
 * @param id the provider id
 * @param outcome {@value #ERASED} (the provider erased the owner), {@value #QUEUED} (the provider
 *     is not running or did not answer in time; the erasure waits in the outbox and runs when it
 *     can), {@value #UNSUPPORTED} (the provider cannot forget owners) or {@value #ERROR} (the
 *     provider failed; with the journal outbox the erasure stays queued and is retried)
 * @param removed what the provider reported as removed (records, files, entries; best effort), 0
 *     unless erased
 * @param droppedPending turns of the owner that were waiting for this provider and will now never
 *     be delivered to it
 * @param detail why, for people, or {@code null}; never a secret
 */
public record ProviderErasure(
    String id, String outcome, long removed, int droppedPending, String detail) {

  public static final String ERASED = "erased";
  public static final String QUEUED = "queued";
  public static final String UNSUPPORTED = "unsupported";
  public static final String ERROR = "error";

  private static final Set<String> OUTCOMES = Set.of(ERASED, QUEUED, UNSUPPORTED, ERROR);

  public ProviderErasure {
    Objects.requireNonNull(id, "id");
    if (!OUTCOMES.contains(outcome)) {
      throw new IllegalArgumentException("unknown erasure outcome: " + outcome);
    }
    if (removed < 0 || droppedPending < 0) {
      throw new IllegalArgumentException("erasure counts must not be negative");
    }
  }
}
