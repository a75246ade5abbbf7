package dev.memstack.host.plugin;

import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import dev.memstack.support.Require;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The host's model ports as handed to providers: each resolves its Spring bean on the first call,
 * so creating a provider never forces a model to load. Embedding calls are measured: timer {@value
 * #EMBEDDING_TIMER} (tag {@code kind}: query or passage) and counter {@value #EMBEDDED_TEXTS}, in
 * Micrometer's global registry, which Spring Boot feeds into its own.
 */
final class LazyModelPorts {

  /** Time spent in embedding calls of providers. */
  static final String EMBEDDING_TIMER = "memstack.embedding";

  /** Texts embedded for providers. */
  static final String EMBEDDED_TEXTS = "memstack.embedding.texts";

  private LazyModelPorts() {}

  static Embedder embedder(ObjectProvider<Embedder> beans) {
    return embedder(beans, Metrics.globalRegistry);
  }

  static Embedder embedder(ObjectProvider<Embedder> beans, MeterRegistry registry) {
    return new LazyEmbedder(beans, registry, new QueryVectorCache(QUERY_VECTORS));
  }

  /** Query vectors kept for the providers of one context call and calls soon after it. */
  static final int QUERY_VECTORS = 256;

  static LanguageModel languageModel(ObjectProvider<LanguageModel> beans) {
    return new LazyLanguageModel(beans);
  }

  /**
   * Resolves the bean on first use; single query texts go through {@link QueryVectorCache}, so the
   * providers of one context call embed its query once.
   */
  private record LazyEmbedder(
      ObjectProvider<Embedder> beans, MeterRegistry registry, QueryVectorCache queries)
      implements Embedder {

    LazyEmbedder {
      Require.nonNull("beans registry queries", beans, registry, queries);
    }

    private Embedder target() {
      return beans.getObject();
    }

    @Override
    public String modelId() {
      return target().modelId();
    }

    @Override
    public int dimension() {
      return target().dimension();
    }

    @Override
    public List<float[]> embed(List<String> texts, Kind kind) {
      if (kind == Kind.QUERY && texts.size() == 1 && texts.get(0) != null) {
        return List.of(embedQuery(texts.get(0)));
      }
      long start = System.nanoTime();
      try {
        return target().embed(texts, kind);
      } finally {
        record(kind, texts.size(), System.nanoTime() - start);
      }
    }

    @Override
    public float[] embedQuery(String text) {
      Objects.requireNonNull(text, "text");
      long start = System.nanoTime();
      try {
        Embedder target = target();
        return queries.get(target.modelId() + "\n" + text, key -> target.embedQuery(text));
      } finally {
        record(Kind.QUERY, 1, System.nanoTime() - start);
      }
    }

    private void record(Kind kind, int texts, long nanos) {
      String tag = kind.name().toLowerCase(Locale.ROOT);
      Timer.builder(EMBEDDING_TIMER)
          .description("Embedding calls of memory providers")
          .tag("kind", tag)
          .register(registry)
          .record(nanos, TimeUnit.NANOSECONDS);
      Counter.builder(EMBEDDED_TEXTS)
          .description("Texts embedded for memory providers")
          .tag("kind", tag)
          .register(registry)
          .increment(texts);
    }

    @Override
    public String toString() {
      return "host embedder";
    }
  }

  /** Falls back to {@link LanguageModel#none()} when the host defines no language model bean. */
  private record LazyLanguageModel(ObjectProvider<LanguageModel> beans) implements LanguageModel {

    LazyLanguageModel {
      Objects.requireNonNull(beans, "beans");
    }

    private LanguageModel target() {
      return beans.getIfAvailable(LanguageModel::none);
    }

    @Override
    public boolean available() {
      return target().available();
    }

    @Override
    public String modelId() {
      return target().modelId();
    }

    @Override
    public String complete(String system, String user, Duration timeout) {
      return target().complete(system, user, timeout);
    }

    @Override
    public String toString() {
      return "host language model";
    }
  }
}
