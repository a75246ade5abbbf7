package dev.memstack.client;

import java.util.Objects;

/**
 * One recalled item named in a feedback call: the provider that recalled it and the item's {@code
 * metadata.id} from the context answer.
 *
 * @param provider the provider instance id, as {@link RecallItem#provider()}
 * @param id the item's id, as {@code RecallItem.metadata().get("id")}
 */
public record FeedbackItem(String provider, String id) {

  public FeedbackItem {
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(id, "id");
  }

  /**
   * The item that names {@code item} of a context answer.
   *
   * @throws IllegalArgumentException when the item carries no {@code metadata.id} (its provider
   *     takes no feedback for it)
   */
  public static FeedbackItem of(RecallItem item) {
    String id = item.metadata().get("id");
    if (id == null) {
      throw new IllegalArgumentException(
          "the item of provider " + item.provider() + " has no metadata.id to name it by");
    }
    return new FeedbackItem(item.provider(), id);
  }
}
