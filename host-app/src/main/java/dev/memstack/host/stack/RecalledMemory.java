package dev.memstack.host.stack;

import dev.memstack.spi.RecallItem;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * One recalled memory of a {@link ContextAnswer} (JSON schema {@code RecallView}).
 *
 * @param provider the provider instance that returned it (of the copy that ranked it highest)
 * @param text the memory, fence tags stripped
 * @param score the provider's score
 * @param scope {@code personal}, {@code team} or {@code global}
 * @param createdAt when the memory was made, or {@code null} when the provider does not say
 * @param metadata the item's {@code id} (what feedback names) and, with explain, the provider's
 *     metadata and the stack's signals ({@code stack.*})
 */
@Schema(name = "RecallView")
public record RecalledMemory(
    String provider,
    String text,
    double score,
    String scope,
    Instant createdAt,
    Map<String, String> metadata) {

  static RecalledMemory of(RecallItem item) {
    return new RecalledMemory(
        item.source(),
        item.text(),
        item.score(),
        item.scope().name().toLowerCase(Locale.ROOT),
        item.createdAt(),
        item.metadata());
  }
}
