package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.Coordination;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CoordinatedWorkTest {

  private static final Instant ANCHOR = Instant.parse("1970-01-01T02:00:00Z");

  @Test
  void perOwnerWorkIsNamedByADigestOfTheOwnerNeverByTheKey() {
    String one = CoordinatedWork.ownerWork("extraction", "a1", "user:alice@example.com");
    assertThat(one)
        .startsWith("extraction:a1|")
        .doesNotContain("alice")
        .hasSize("extraction:a1|".length() + 32)
        .isEqualTo(CoordinatedWork.ownerWork("extraction", "a1", "user:alice@example.com"));
    assertThat(CoordinatedWork.ownerWork("extraction", "a1", "user:bob")).isNotEqualTo(one);
    assertThat(CoordinatedWork.ownerWork("extraction", "a1", null)).isEqualTo("extraction:a1|");
  }

  @Test
  void aSlotIsTheNearestFireTimeSoHostsFiringApartNameTheSameRun() {
    Duration day = Duration.ofDays(1);
    assertThat(CoordinatedWork.slotOf(Instant.parse("2026-12-01T02:00:00.350Z"), ANCHOR, day))
        .isEqualTo("2026-12-01T02:00:00Z");
    assertThat(CoordinatedWork.slotOf(Instant.parse("2026-12-01T01:59:58Z"), ANCHOR, day))
        .isEqualTo("2026-12-01T02:00:00Z");
    assertThat(CoordinatedWork.slotOf(Instant.parse("2026-12-01T15:00:00Z"), ANCHOR, day))
        .isEqualTo("2026-12-02T02:00:00Z");
    assertThat(
            CoordinatedWork.slotOf(
                Instant.parse("2026-12-01T04:31:00Z"), ANCHOR, Duration.ofMinutes(30)))
        .isEqualTo("2026-12-01T04:30:00Z");
    assertThatThrownBy(() -> CoordinatedWork.slotOf(ANCHOR, ANCHOR, Duration.ZERO))
        .hasMessageContaining("period");
  }

  @Test
  void aLockIsAwaitedUntilItsHolderFreesItOrTheWaitPasses() throws Exception {
    Coordination coordination = Coordination.local(Clock.systemUTC());
    Coordination.Lease held = coordination.tryLock("k", Duration.ofMinutes(1)).orElseThrow();
    long start = System.nanoTime();
    assertThat(
            CoordinatedWork.awaitLock(
                coordination, "k", Duration.ofMinutes(1), Duration.ofMillis(300)))
        .isEmpty();
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(300_000_000L);

    Thread release =
        new Thread(
            () -> {
              try {
                Thread.sleep(250);
              } catch (InterruptedException e) {
                return;
              }
              held.close();
            });
    release.start();
    Optional<Coordination.Lease> taken =
        CoordinatedWork.awaitLock(coordination, "k", Duration.ofMinutes(1), Duration.ofSeconds(5));
    release.join();
    assertThat(taken).isPresent();
  }

  @Test
  void runsTakeTurnsOverMoreItemsThanOneMayCoverOnOneCounter() {
    Coordination one = Coordination.local(Clock.systemUTC());
    List<String> owners = List.of("a", "b", "c", "d", "e");

    assertThat(CoordinatedWork.turn(one, "owners", owners, 2)).containsExactly("a", "b");
    assertThat(CoordinatedWork.turn(one, "owners", owners, 2)).containsExactly("c", "d");
    assertThat(CoordinatedWork.turn(one, "owners", owners, 2)).containsExactly("e", "a");
    assertThat(CoordinatedWork.turn(one, "others", owners, 2))
        .as("another counter starts anew")
        .containsExactly("a", "b");
    assertThat(CoordinatedWork.turn(one, "owners", owners, 0)).isEqualTo(owners);
    assertThat(CoordinatedWork.turn(one, "owners", owners, 5)).isEqualTo(owners);
    assertThat(CoordinatedWork.window(owners, 4, 3)).containsExactly("e", "a", "b");
    assertThat(CoordinatedWork.window(List.of("x"), 0, 3)).containsExactly("x");
  }
}
