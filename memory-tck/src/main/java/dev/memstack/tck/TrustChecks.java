package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.memstack.spi.Capability;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.Scope;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Kit checks of {@code TRUST} (SPI 0.5.0): an item its owner marks wrong again and again stops
 * leading their recall, for them only; another owner cannot mark an item they cannot see.
 */
abstract class TrustChecks extends CheckGroup {

  private static final String QUERY = "saffron lantern";

  TrustChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void requireTrust() {
    assumeCapability(Capability.TRUST);
  }

  @Test
  @DisplayName("an item marked wrong stops leading its owner's recall, and only theirs")
  void wrongLowersTheItemForItsOwnerOnly() {
    sync(turn(AGENT, ALICE, "My saffron lantern is broken.", "Sorry to hear."));
    sync(turn(AGENT, ALICE, "The saffron lantern in the garden glows at night.", "Lovely."));
    sync(turn(AGENT, BOB, "My saffron lantern collection has nine pieces.", "Nine, noted."));
    awaitIndexed(provider());
    List<RecallItem> before = recall(AGENT, ALICE, QUERY, 10);
    assumeTrue(
        before.stream().filter(i -> i.scope() == Scope.PERSONAL).count() >= 2,
        () -> provider().id() + " recalls fewer than two of alice's items for '" + QUERY + "'");
    String first = before.get(0).metadata().get("id");
    assertThat(first).as("id metadata of %s", before.get(0)).isNotBlank();
    List<RecallItem> bobs = recall(AGENT, BOB, QUERY, 10);

    assertThat(provider().wrong(AGENT, BOB, List.of(first)))
        .as("bob marks alice's item, which he cannot see")
        .isZero();
    int applied = 0;
    for (int i = 0; i < 5; i++) {
      applied += provider().wrong(AGENT, ALICE, List.of(first));
    }
    assertThat(applied).as("alice's marks applied").isPositive();
    awaitIndexed(provider());

    List<RecallItem> after = recall(AGENT, ALICE, QUERY, 10);
    assertThat(after).as("alice's recall after five marks: %s", after).isNotEmpty();
    assertThat(after.get(0).metadata().get("id"))
        .as("the item alice marked wrong five times still leads: %s", after)
        .isNotEqualTo(first);
    assertThat(recall(AGENT, BOB, QUERY, 10))
        .extracting(i -> i.metadata().get("id"))
        .as("bob's recall after alice's marks")
        .containsExactlyElementsOf(bobs.stream().map(i -> i.metadata().get("id")).toList());
  }
}
