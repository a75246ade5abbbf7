package dev.memstack.outbox.journal;

import dev.memstack.support.Require;
import java.time.Instant;
import java.util.Comparator;
import java.util.regex.Pattern;

/**
 * A turn one provider will not take, parked out of its lane so that the turns behind it are
 * delivered: the provider rejected it for good, or it failed {@code memstack.outbox.max-attempts}
 * times while the provider stored other turns. The turn's text is kept beside it (in the {@link
 * DeadLetterStore}) for a retry, never in this description.
 *
 * @param id {@code <position>.<provider>}: unique per record and provider
 * @param provider the provider that did not take it
 * @param position the record's place in the journal when it was parked
 * @param owner the turn's owner key
 * @param agent the turn's agent id
 * @param conversationId the turn's conversation id
 * @param turnId the turn's id
 * @param acceptedAt when the host accepted the turn
 * @param parkedAt when it was parked
 * @param attempts delivery attempts before it was parked
 * @param reason {@code rejected} (the provider said so) or {@code failing} (it kept failing while
 *     other turns went through)
 * @param detail the last failure, without secrets
 */
public record DeadLetter(
    String id,
    String provider,
    long position,
    String owner,
    String agent,
    String conversationId,
    String turnId,
    Instant acceptedAt,
    Instant parkedAt,
    int attempts,
    String reason,
    String detail) {

  /** The provider said the turn can never be stored. */
  public static final String REJECTED = "rejected";

  /** The turn kept failing while the provider stored others. */
  public static final String FAILING = "failing";

  /** Oldest parked first, then by id. */
  public static final Comparator<DeadLetter> PARKED_ORDER =
      Comparator.comparing(DeadLetter::parkedAt).thenComparing(d -> d.id());

  private static final Pattern ID = Pattern.compile("[0-9]{1,19}\\.[a-z][a-z0-9-]{0,63}");

  public DeadLetter {
    Require.nonNull(
        "id provider owner acceptedAt parkedAt reason",
        id,
        provider,
        owner,
        acceptedAt,
        parkedAt,
        reason);
    if (!isId(id)) {
      throw new IllegalArgumentException("not a dead-letter id: " + id);
    }
  }

  /** The id of the dead letter of the record at {@code position} for {@code provider}. */
  public static String idOf(long position, String provider) {
    return position + "." + provider;
  }

  /** Whether {@code text} has the form of a dead-letter id ({@code 1234.vector}). */
  public static boolean isId(String text) {
    return text != null && ID.matcher(text).matches();
  }
}
