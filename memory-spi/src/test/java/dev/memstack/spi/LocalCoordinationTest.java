package dev.memstack.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class LocalCoordinationTest {

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-12-01T00:00:00Z"));
  private final Clock clock =
      new Clock() {
        @Override
        public ZoneId getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return now.get();
        }
      };
  private final Coordination coordination = Coordination.local(clock);

  private void advance(Duration by) {
    now.set(now.get().plus(by));
  }

  @Test
  void aRunIsClaimedOncePerSlot() {
    assertThat(coordination.claimRun("dreaming:a", "03:00")).isTrue();
    assertThat(coordination.claimRun("dreaming:a", "03:00")).isFalse();
    assertThat(coordination.claimRun("dreaming:a", "04:00")).isTrue();
    assertThat(coordination.claimRun("dreaming:b", "03:00")).isTrue();
  }

  @Test
  void aLockIsHeldUntilClosedOrExpired() {
    Optional<Coordination.Lease> first = coordination.tryLock("extract", Duration.ofSeconds(10));
    assertThat(first).isPresent();
    assertThat(coordination.tryLock("extract", Duration.ofSeconds(10))).isEmpty();
    first.get().close();
    Optional<Coordination.Lease> second = coordination.tryLock("extract", Duration.ofSeconds(10));
    assertThat(second).isPresent();
    advance(Duration.ofSeconds(11));
    Optional<Coordination.Lease> third = coordination.tryLock("extract", Duration.ofSeconds(10));
    assertThat(third).isPresent();
    assertThat(second.get().renew()).isFalse();
    assertThat(third.get().renew()).isTrue();
    second.get().close();
    assertThat(coordination.tryLock("extract", Duration.ofSeconds(10))).isEmpty();
  }

  @Test
  void aCooldownRefusesUntilItHasPassed() {
    assertThat(coordination.tryStartCooldown("a|o", Duration.ofMinutes(5))).isTrue();
    advance(Duration.ofMinutes(4));
    assertThat(coordination.tryStartCooldown("a|o", Duration.ofMinutes(5))).isFalse();
    advance(Duration.ofMinutes(1));
    assertThat(coordination.tryStartCooldown("a|o", Duration.ofMinutes(5))).isTrue();
    assertThatThrownBy(() -> coordination.tryStartCooldown("x", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cooldown");
  }

  @Test
  void countersAddAtomically() throws InterruptedException {
    Thread[] threads = new Thread[4];
    for (int t = 0; t < threads.length; t++) {
      threads[t] =
          new Thread(
              () -> {
                for (int i = 0; i < 1000; i++) {
                  coordination.addAndGet("hits", 1);
                }
              });
      threads[t].start();
    }
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(coordination.addAndGet("hits", 0)).isEqualTo(4000);
    assertThat(coordination.shared()).isFalse();
  }

  @Test
  void aContextWithoutItsOwnAnswersFromOneCoordination() {
    ProviderContext context =
        new ProviderContext() {
          public String instanceId() {
            return "x";
          }

          public ProviderConfig config() {
            return null;
          }

          public java.nio.file.Path dataDir() {
            return null;
          }

          public Clock clock() {
            return clock;
          }

          public Embedder embedder() {
            return null;
          }

          public LanguageModel languageModel() {
            return LanguageModel.none();
          }

          public void systemPromptChanged(AgentId agent) {}
        };
    assertThat(context.coordination()).isSameAs(context.coordination());
    assertThat(context.sharedDatabase()).isEmpty();
  }
}
