package dev.memstack.host.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.Embedder;
import dev.memstack.spi.Embedder.Kind;
import dev.memstack.tck.HashingEmbedder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

class QueryVectorCacheTest {

  @Test
  @DisplayName("two callers asking for one query at once share one embedding")
  void singleFlight() throws Exception {
    QueryVectorCache cache = new QueryVectorCache(8);
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<float[]> first =
          pool.submit(
              () ->
                  cache.get(
                      "q",
                      key -> {
                        calls.incrementAndGet();
                        started.countDown();
                        await(release);
                        return new float[] {1, 2};
                      }));
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      Future<float[]> second =
          pool.submit(
              () ->
                  cache.get(
                      "q",
                      key -> {
                        calls.incrementAndGet();
                        return new float[] {9, 9};
                      }));
      Thread.sleep(50);
      assertThat(second.isDone()).as("waits for the first caller's vector").isFalse();
      release.countDown();
      assertThat(first.get(5, TimeUnit.SECONDS)).containsExactly(1, 2);
      assertThat(second.get(5, TimeUnit.SECONDS)).containsExactly(1, 2);
      assertThat(calls).hasValue(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @DisplayName("keeps the most recent queries only; hands out copies")
  void evictsAndCopies() {
    QueryVectorCache cache = new QueryVectorCache(2);
    AtomicInteger calls = new AtomicInteger();
    cache.get("a", key -> vector(calls));
    cache.get("b", key -> vector(calls));
    cache.get("a", key -> vector(calls)); // a is now the most recent
    cache.get("c", key -> vector(calls)); // b goes
    assertThat(cache.size()).isEqualTo(2);
    assertThat(calls).hasValue(3);
    cache.get("b", key -> vector(calls));
    assertThat(calls).hasValue(4);

    float[] one = cache.get("b", key -> vector(calls));
    one[0] = 42;
    assertThat(cache.get("b", key -> vector(calls))[0]).isNotEqualTo(42);
  }

  @Test
  @DisplayName("a failed embedding is thrown to its caller and not kept")
  void failuresAreNotKept() {
    QueryVectorCache cache = new QueryVectorCache(4);
    assertThatThrownBy(
            () ->
                cache.get(
                    "q",
                    key -> {
                      throw new IllegalStateException("model down");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("model down");
    assertThat(cache.size()).isZero();
    assertThat(cache.get("q", key -> new float[] {3})).containsExactly(3);
  }

  @Test
  @DisplayName("the providers' embedder embeds a repeated query once, and passages every time")
  void theProvidersEmbedderSharesQueryVectors() {
    AtomicInteger queries = new AtomicInteger();
    AtomicInteger passages = new AtomicInteger();
    HashingEmbedder hashing = new HashingEmbedder();
    Embedder counting =
        new Embedder() {
          @Override
          public String modelId() {
            return hashing.modelId();
          }

          @Override
          public int dimension() {
            return hashing.dimension();
          }

          @Override
          public List<float[]> embed(List<String> texts, Kind kind) {
            (kind == Kind.QUERY ? queries : passages).addAndGet(texts.size());
            return hashing.embed(texts, kind);
          }
        };
    StaticListableBeanFactory beans = new StaticListableBeanFactory();
    beans.addBean("embedder", counting);
    Embedder embedder =
        LazyModelPorts.embedder(beans.getBeanProvider(Embedder.class), new SimpleMeterRegistry());

    float[] first = embedder.embedQuery("where does Ana live?");
    float[] again = embedder.embed(List.of("where does Ana live?"), Kind.QUERY).get(0);
    embedder.embed(List.of("a passage"), Kind.PASSAGE);
    embedder.embed(List.of("a passage"), Kind.PASSAGE);

    assertThat(again).containsExactly(first);
    assertThat(first).containsExactly(hashing.embedQuery("where does Ana live?"));
    assertThat(queries).hasValue(1);
    assertThat(passages).hasValue(2);
  }

  private static float[] vector(AtomicInteger calls) {
    return new float[] {calls.incrementAndGet()};
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
