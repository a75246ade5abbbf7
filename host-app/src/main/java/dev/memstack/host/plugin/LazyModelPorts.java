package dev.memstack.host.plugin;

import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The host's model ports as handed to providers: each resolves its Spring bean on the first call,
 * so creating a provider never forces a model to load.
 */
final class LazyModelPorts {

  private LazyModelPorts() {}

  static Embedder embedder(ObjectProvider<Embedder> beans) {
    return new LazyEmbedder(beans);
  }

  static LanguageModel languageModel(ObjectProvider<LanguageModel> beans) {
    return new LazyLanguageModel(beans);
  }

  private record LazyEmbedder(ObjectProvider<Embedder> beans) implements Embedder {

    LazyEmbedder {
      Objects.requireNonNull(beans, "beans");
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
      return target().embed(texts, kind);
    }

    @Override
    public float[] embedQuery(String text) {
      return target().embedQuery(text);
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
