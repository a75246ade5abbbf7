package dev.memstack.notes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.tck.TestProviderContext;
import dev.memstack.tck.Turns;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class NotesProviderTest {

  private static final AgentId AGENT = AgentId.of("helper");
  private static final OwnerKey ANN = OwnerKey.of("user:ann");
  private static final OwnerKey BEN = OwnerKey.of("user:ben");
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  private MemoryProvider provider = create(Map.of());

  @AfterEach
  void close() {
    provider.close();
  }

  private static MemoryProvider create(Map<String, String> config) {
    return new NotesProviderFactory()
        .create(
            TestProviderContext.builder()
                .config(ProviderConfig.of("memstack.providers.notes.config", config))
                .build());
  }

  private void say(OwnerKey owner, String turnId, int minute, String message) {
    provider.syncTurn(
        Turns.turn(turnId, T0.plusSeconds(60L * minute), AGENT, owner, message, "ok"));
  }

  private List<RecallItem> recall(OwnerKey owner, String query) {
    return provider.prefetch(RecallRequest.of(AGENT, owner, query)).items();
  }

  @Test
  @DisplayName("scores by the share of query words a note contains, best first, in [0, 1]")
  void scoresByTheShareOfQueryWords() {
    say(ANN, "t1", 1, "My cat is called Pixel.");
    say(ANN, "t2", 2, "The cat sleeps on the piano.");
    say(ANN, "t3", 3, "Lunch was soup.");

    List<RecallItem> items = recall(ANN, "Pixel, cat? dog");

    assertThat(items)
        .extracting(RecallItem::text)
        .containsExactly("My cat is called Pixel.", "The cat sleeps on the piano.");
    assertThat(items).extracting(RecallItem::score).containsExactly(2.0 / 3, 1.0 / 3);
    assertThat(items.get(0).metadata()).containsEntry("id", "t1");
    // equal scores: the newer note first
    assertThat(recall(ANN, "cat"))
        .extracting(item -> item.metadata().get("id"))
        .containsExactly("t2", "t1");
    assertThat(recall(ANN, "CAT Pixel")).first().extracting(RecallItem::score).isEqualTo(1.0);
  }

  @Test
  @DisplayName("an owner recalls only their own notes, and none without an owner")
  void anOwnerRecallsOnlyTheirOwnNotes() {
    say(ANN, "t1", 1, "My locker code is 4711.");
    say(BEN, "t2", 2, "My locker is next to the stairs.");

    assertThat(recall(ANN, "locker")).extracting(RecallItem::owner).containsExactly(ANN);
    assertThat(recall(BEN, "locker code 4711"))
        .extracting(RecallItem::text)
        .containsExactly("My locker is next to the stairs.");
    assertThat(recall(null, "locker")).isEmpty();
  }

  @Test
  @DisplayName("forget erases one owner, counts the notes, and keeps the others")
  void forgetErasesOneOwner() {
    say(ANN, "t1", 1, "I prefer tea.");
    say(ANN, "t1", 1, "I prefer tea."); // a redelivery is stored once
    say(ANN, "t2", 2, "Tea with lemon.");
    say(BEN, "t3", 3, "I prefer tea too.");

    assertThat(provider.forget(ANN)).isEqualTo(2);
    assertThat(recall(ANN, "tea")).isEmpty();
    assertThat(recall(BEN, "tea")).hasSize(1);
    assertThat(provider.forget(ANN)).isZero();
  }

  @Test
  @DisplayName("keeps at most max-notes per owner, dropping the oldest, and rejects bad values")
  void keepsAtMostMaxNotesPerOwner() {
    provider.close();
    provider = create(Map.of("max-notes", "2"));
    say(ANN, "t1", 1, "apple one");
    say(ANN, "t2", 2, "apple two");
    say(ANN, "t3", 3, "apple three");

    assertThat(recall(ANN, "apple"))
        .extracting(RecallItem::text)
        .containsExactly("apple three", "apple two");
    assertThatThrownBy(() -> create(Map.of("max-notes", "0")))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("memstack.providers.notes.config.max-notes");
  }
}
