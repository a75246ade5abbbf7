package dev.memstack.host.outbox;

import static dev.memstack.host.outbox.Turns.eventually;
import static dev.memstack.host.outbox.Turns.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.journal.DeadLetter;
import dev.memstack.spi.OwnerKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A turn a provider will not take is parked as a dead letter and the turns behind it are delivered:
 * at once when the provider rejects it ({@code TurnRejectedException}, also inside a batch), after
 * {@code max-attempts} failures when the provider stores the next turn meanwhile; never during an
 * outage (everything failing, or the provider unavailable). Dead letters are retried, deleted and
 * erased with their owner.
 */
class DeadLetterTest {

  private static final Duration PATIENCE = Duration.ofSeconds(15);

  @TempDir Path dir;

  private final TestMembers members = new TestMembers();
  private final List<OutboxEngine> opened = new ArrayList<>();

  @AfterEach
  void closeAll() {
    opened.forEach(OutboxEngine::close);
  }

  private OutboxEngine open(String type, int maxAttempts) {
    OutboxSettings settings =
        OutboxSettingsBuilder.defaults().fastRetry().maxAttempts(maxAttempts).build();
    OutboxEngine engine =
        switch (type) {
          case "journal" -> OutboxEngine.onDisk(dir, settings, Turns.port(members));
          case "memory" -> OutboxEngine.inMemory(settings, Turns.port(members));
          default -> throw new IllegalArgumentException(type);
        };
    opened.add(engine);
    return engine;
  }

  private static List<String> ids(int count) {
    List<String> ids = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      ids.add("t" + i);
    }
    return ids;
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void aRejectedTurnIsParkedAtOnceAndTheTurnsBehindItAreDelivered(String type) {
    RecordingProvider a = new RecordingProvider("a");
    a.rejected.add("t2");
    members.run(a);
    OutboxEngine engine = open(type, 1000);
    ids(5).forEach(id -> engine.enqueue(turn(id), List.of("a")));

    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactly("t1", "t3", "t4", "t5"));
    List<DeadLetter> letters = engine.deadLetters().list(null);
    assertThat(letters)
        .singleElement()
        .satisfies(
            letter -> {
              assertThat(letter.turnId()).isEqualTo("t2");
              assertThat(letter.provider()).isEqualTo("a");
              assertThat(letter.owner()).isEqualTo("user:1");
              assertThat(letter.reason()).isEqualTo(DeadLetter.REJECTED);
              assertThat(letter.attempts()).isEqualTo(1);
              assertThat(letter.detail()).contains("TurnRejectedException", "never be stored");
              assertThat(letter.id()).isEqualTo(letter.position() + ".a");
            });
    eventually(PATIENCE, () -> assertThat(engine.stats().get("a").pending()).isZero());
    assertThat(engine.deadLetters().counts()).containsEntry("a", 1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void aRejectedTurnInsideABatchIsFoundAndParked(String type) {
    RecordingProvider a = new RecordingProvider("a");
    a.batches = true;
    a.rejected.add("t7");
    members.run(a);
    OutboxEngine engine = open(type, 1000);
    List<String> ids = ids(20);
    ids.forEach(id -> engine.enqueue(turn(id), List.of("a")));

    List<String> expected = ids.stream().filter(id -> !id.equals("t7")).toList();
    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactlyElementsOf(expected));
    assertThat(engine.deadLetters().list("a")).extracting(DeadLetter::turnId).containsExactly("t7");
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void aTurnThatKeepsFailingIsParkedAfterMaxAttemptsOnceTheNextGoesThrough(String type) {
    RecordingProvider a = new RecordingProvider("a");
    a.poison = "t2";
    a.poisonFailures.set(Integer.MAX_VALUE);
    members.run(a);
    OutboxEngine engine = open(type, 3);
    ids(4).forEach(id -> engine.enqueue(turn(id), List.of("a")));

    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactly("t1", "t3", "t4"));
    assertThat(engine.deadLetters().list(null))
        .singleElement()
        .satisfies(
            letter -> {
              assertThat(letter.turnId()).isEqualTo("t2");
              assertThat(letter.reason()).isEqualTo(DeadLetter.FAILING);
              assertThat(letter.attempts()).isEqualTo(3);
              assertThat(letter.detail()).contains("cannot store t2");
            });
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void aTurnPastMaxAttemptsIsTriedOnceMoreWhenTheProbeGoesThroughAndKeptIfItDoes(String type) {
    RecordingProvider a = new RecordingProvider("a");
    a.poison = "t1";
    a.poisonFailures.set(2); // fails twice (an outage that ends), then goes through
    members.run(a);
    OutboxEngine engine = open(type, 2);
    ids(3).forEach(id -> engine.enqueue(turn(id), List.of("a")));

    eventually(
        PATIENCE, () -> assertThat(a.storedIds()).containsExactlyInAnyOrder("t1", "t2", "t3"));
    assertThat(engine.deadLetters().list(null)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void anOutageParksNothingHoweverLongItLasts(String type) {
    RecordingProvider a = RecordingProvider.down("a");
    members.run(a);
    OutboxEngine engine = open(type, 2);
    ids(5).forEach(id -> engine.enqueue(turn(id), List.of("a")));

    eventually(
        PATIENCE,
        () -> assertThat(engine.stats().get("a").failedAttempts()).isGreaterThanOrEqualTo(12));
    assertThat(engine.deadLetters().list(null)).isEmpty();
    a.failing = false;
    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactlyElementsOf(ids(5)));
    assertThat(engine.deadLetters().list(null)).isEmpty();
  }

  @Test
  void anUnavailableProviderIsRetriedWithoutCountingAttempts() {
    RecordingProvider a = new RecordingProvider("a");
    a.unavailable = true;
    a.poison = "t1"; // would be parked after one counted failure if unavailability counted
    a.poisonFailures.set(Integer.MAX_VALUE);
    members.run(a);
    OutboxEngine engine = open("memory", 1);
    engine.enqueue(turn("t1"), List.of("a"));

    eventually(
        PATIENCE,
        () -> assertThat(engine.stats().get("a").failedAttempts()).isGreaterThanOrEqualTo(10));
    assertThat(engine.deadLetters().list(null)).isEmpty();
    a.unavailable = false;
    engine.enqueue(turn("t2"), List.of("a"));
    // t1 fails (counted, the limit is 1), t2 goes through as the probe, t1 fails again: parked
    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactly("t2"));
    assertThat(engine.deadLetters().list(null))
        .extracting(DeadLetter::turnId)
        .containsExactly("t1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void aRetriedDeadLetterIsDeliveredAgainAndADeletedOneIsGone(String type) {
    RecordingProvider a = new RecordingProvider("a");
    a.rejected.add("t2");
    a.rejected.add("t3");
    members.run(a);
    OutboxEngine engine = open(type, 1000);
    ids(4).forEach(id -> engine.enqueue(turn(id), List.of("a")));
    eventually(PATIENCE, () -> assertThat(engine.deadLetters().list(null)).hasSize(2));
    String retried = engine.deadLetters().list(null).get(0).id();
    String deleted = engine.deadLetters().list(null).get(1).id();

    a.rejected.clear();
    assertThat(engine.deadLetters().retry(retried)).isPresent();
    assertThat(engine.deadLetters().delete(deleted)).isTrue();
    assertThat(engine.deadLetters().delete(deleted)).isFalse();
    assertThat(engine.deadLetters().retry("999999.a")).isEmpty();
    assertThat(engine.deadLetters().retry("../cursors")).isEmpty();

    eventually(PATIENCE, () -> assertThat(a.storedIds()).containsExactly("t1", "t4", "t2"));
    assertThat(engine.deadLetters().list(null)).isEmpty();
    assertThat(a.storedIds()).doesNotContain("t3");
  }

  @ParameterizedTest
  @ValueSource(strings = {"journal", "memory"})
  void anErasedOwnersDeadLettersAreErased(String type) {
    RecordingProvider a = new RecordingProvider("a");
    a.rejected.add("mine");
    a.rejected.add("theirs");
    members.run(a);
    OutboxEngine engine = open(type, 1000);
    engine.enqueue(turn("mine", "user:1"), List.of("a"));
    engine.enqueue(turn("theirs", "user:2"), List.of("a"));
    eventually(PATIENCE, () -> assertThat(engine.deadLetters().list(null)).hasSize(2));

    engine.erase(OwnerKey.of("user:1"));

    assertThat(engine.deadLetters().list(null))
        .extracting(DeadLetter::turnId)
        .containsExactly("theirs");
  }
}
