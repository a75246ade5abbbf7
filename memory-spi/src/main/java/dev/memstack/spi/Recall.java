package dev.memstack.spi;

import java.util.List;
import java.util.Objects;

/**
 * A provider's answer to a {@link RecallRequest}: items ordered by non-increasing {@link
 * RecallItem#score()}, at most {@link RecallRequest#limit()} of them.
 *
 * @param items the items, never {@code null}, copied and unmodifiable
 */
public record Recall(List<RecallItem> items) {

  private static final Recall EMPTY = new Recall(List.of());

  public Recall {
    Objects.requireNonNull(items, "items");
    items = List.copyOf(items);
  }

  /** No items. */
  public static Recall empty() {
    return EMPTY;
  }

  /** Same as the constructor. */
  public static Recall of(List<RecallItem> items) {
    return new Recall(items);
  }

  public boolean isEmpty() {
    return items.isEmpty();
  }
}
