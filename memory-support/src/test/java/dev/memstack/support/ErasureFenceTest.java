package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Erasure counts, and the fence between an erasure and writes that read before it. */
class ErasureFenceTest {

  @Test
  @DisplayName("a hold is refused once the key was erased since its count was read; others are not")
  void refusesAHoldAfterAnErasure() {
    ErasureFence<String> fence = new ErasureFence<>(4);
    long seen = fence.erasures("alice");
    fence.countErasure("alice");

    assertThat(fence.erasures("alice")).isEqualTo(seen + 1);
    assertThat(fence.holdIfNotErasedSince("alice", seen)).isNull();
    try (ErasureFence.Held held = fence.holdIfNotErasedSince("alice", seen + 1)) {
      assertThat(held).isNotNull();
    }
    try (ErasureFence.Held held = fence.holdIfNotErasedSince("bob", fence.erasures("bob"))) {
      assertThat(held).isNotNull();
    }
    // a refused hold lets its stripe go: an erasure still goes through
    fence.countErasure("alice");
    assertThat(fence.erasures("alice")).isEqualTo(seen + 2);
  }

  @Test
  @DisplayName("an erasure waits for a hold under way")
  void anErasureWaitsForAHold() throws Exception {
    ErasureFence<String> fence = new ErasureFence<>(1);
    CompletableFuture<Void> erasure;
    try (ErasureFence.Held held = fence.holdIfNotErasedSince("alice", 0)) {
      assertThat(held).isNotNull();
      erasure = CompletableFuture.runAsync(() -> fence.countErasure("alice"));
      Thread.sleep(200);
      assertThat(erasure).isNotDone();
      assertThat(fence.erasures("alice")).isZero();
    }
    erasure.get(10, TimeUnit.SECONDS);
    assertThat(fence.erasures("alice")).isOne();
  }

  @Test
  @DisplayName("needs at least one stripe")
  void needsAStripe() {
    assertThatThrownBy(() -> new ErasureFence<String>(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("stripes");
  }
}
