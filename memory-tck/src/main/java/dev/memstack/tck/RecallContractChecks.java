package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.memstack.spi.Capability;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.Turn;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kit checks: limits, score order, item marks, attached vectors and blank queries of every recall.
 */
abstract class RecallContractChecks extends CheckGroup {

  RecallContractChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @Test
  @DisplayName("returns no more items than the request's limit")
  void returnsNoMoreItemsThanTheLimit() {
    sync(sharedWordTurns(ALICE, 12).toArray(Turn[]::new));

    List<RecallItem> items = recall(AGENT, ALICE, SHARED_WORD, 3);
    assertThat(items).hasSizeLessThanOrEqualTo(3);
    if (has(Capability.RECALLS_TURNS)) {
      assertThat(items).as("twelve turns share the word '%s'", SHARED_WORD).isNotEmpty();
    }
    assertThat(recall(AGENT, ALICE, SHARED_WORD, 1)).hasSizeLessThanOrEqualTo(1);
  }

  @Test
  @DisplayName("orders items by non-increasing score")
  void ordersItemsByNonIncreasingScore() {
    sync(sharedWordTurns(ALICE, 12).toArray(Turn[]::new));
    sync(aliceTurn(AGENT));

    for (String query : List.of(SHARED_WORD, SHARED_WORD + " " + ALICE_PHRASE, "dish 7 rice")) {
      List<RecallItem> items = recall(AGENT, ALICE, query, 20);
      for (int i = 1; i < items.size(); i++) {
        assertThat(items.get(i).score())
            .as("score of item %d for '%s' in %s", i, query, items)
            .isLessThanOrEqualTo(items.get(i - 1).score());
      }
    }
  }

  @Test
  @DisplayName("marks every item with its own id and the requesting owner")
  void marksEveryItemWithItsOwnIdAndTheRequestingOwner() {
    sync(sharedWordTurns(ALICE, 4).toArray(Turn[]::new));
    sync(sharedWordTurns(BOB, 4).toArray(Turn[]::new));

    assertWellFormed(recall(AGENT, ALICE, SHARED_WORD, 20), ALICE, 20);
    assertWellFormed(recall(AGENT, BOB, SHARED_WORD, 20), BOB, 20);
  }

  @Test
  @DisplayName("asked for vectors, attaches only vectors of the host's model and dimension")
  void attachesOnlyTheHostsVectors() {
    sync(sharedWordTurns(ALICE, 6).toArray(Turn[]::new));
    String model = context().embedder().modelId();
    int dimension = context().embedder().dimension();

    List<RecallItem> items =
        provider().prefetch(request(AGENT, ALICE, SHARED_WORD, 10).withVectors(true)).items();

    assertWellFormed(items, ALICE, 10);
    for (RecallItem item : items) {
      if (item.vector() != null) {
        assertThat(item.vector().model())
            .as("model of the vector attached to '%s'", item.text())
            .isEqualTo(model);
        assertThat(item.vector().dimension())
            .as("dimension of the vector attached to '%s'", item.text())
            .isEqualTo(dimension);
      }
    }
  }

  @Test
  @DisplayName("accepts a blank query without throwing")
  void acceptsABlankQueryWithoutThrowing() {
    sync(aliceTurn(AGENT), bobTurn(AGENT));

    for (String query : List.of("", "   ", "\n\t")) {
      assertThatCode(() -> assertWellFormed(recall(AGENT, ALICE, query, 5), ALICE, 5))
          .as("recall for blank query '%s'", query)
          .doesNotThrowAnyException();
      assertThatCode(() -> assertWellFormed(recall(AGENT, null, query, 5), null, 5))
          .as("owner-less recall for blank query '%s'", query)
          .doesNotThrowAnyException();
    }
  }
}
