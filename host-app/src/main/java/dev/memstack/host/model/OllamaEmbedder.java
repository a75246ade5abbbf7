package dev.memstack.host.model;

import dev.memstack.spi.Embedder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.springframework.ai.embedding.Embedding;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.embedding.EmbeddingRequest;
import org.springframework.ai.embedding.EmbeddingResponse;

/**
 * An {@link Embedder} backed by an Ollama server through Spring AI's {@code OllamaEmbeddingModel}
 * ({@code memstack.models.embedding=ollama}; server and model from {@code
 * memstack.models.ollama.*}). The model id is {@code ollama:<model>}; the dimension is learnt from
 * the first answer (asking the server once if {@link #dimension()} comes first) and every later
 * answer must match it. The configured query/passage prefixes are added to the texts; vectors are
 * L2-normalised. All texts of one call go to the server in one request. Thread-safe.
 */
public final class OllamaEmbedder implements Embedder {

  private static final String PROBE = "dimension probe";

  private final EmbeddingModel model;
  private final String modelId;
  private final String queryPrefix;
  private final String passagePrefix;
  private final String server;
  private volatile int dimension = -1;

  /** An embedder for the configured Ollama server and embedding model. */
  public static OllamaEmbedder create(ModelProperties.Ollama settings) {
    return new OllamaEmbedder(
        OllamaClients.embeddingModel(settings),
        settings.embeddingModel(),
        settings.queryPrefix(),
        settings.passagePrefix(),
        settings.baseUrl());
  }

  OllamaEmbedder(
      EmbeddingModel model,
      String modelName,
      String queryPrefix,
      String passagePrefix,
      String server) {
    this.model = Objects.requireNonNull(model, "model");
    this.modelId = "ollama:" + Objects.requireNonNull(modelName, "modelName");
    this.queryPrefix = Objects.requireNonNull(queryPrefix, "queryPrefix");
    this.passagePrefix = Objects.requireNonNull(passagePrefix, "passagePrefix");
    this.server = Objects.requireNonNull(server, "server");
  }

  @Override
  public String modelId() {
    return modelId;
  }

  /**
   * The length of the model's vectors; the first call asks the server if nothing was embedded yet.
   *
   * @throws IllegalStateException if the server cannot be asked
   */
  @Override
  public int dimension() {
    int known = dimension;
    if (known < 0) {
      embed(List.of(PROBE), Kind.PASSAGE);
      known = dimension;
    }
    return known;
  }

  @Override
  public List<float[]> embed(List<String> texts, Kind kind) {
    Objects.requireNonNull(texts, "texts");
    Objects.requireNonNull(kind, "kind");
    if (texts.isEmpty()) {
      return List.of();
    }
    String prefix = kind == Kind.QUERY ? queryPrefix : passagePrefix;
    List<String> inputs = new ArrayList<>(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      String text = texts.get(i);
      if (text == null) {
        throw new IllegalArgumentException("texts[" + i + "] is null");
      }
      inputs.add(prefix + text);
    }
    EmbeddingResponse response;
    try {
      response = model.call(new EmbeddingRequest(inputs, null));
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "embedding model " + modelId + " at " + server + " failed: " + e.getMessage(), e);
    }
    List<Embedding> results = response == null ? List.of() : response.getResults();
    if (results.size() != inputs.size()) {
      throw new IllegalStateException(
          "embedding model "
              + modelId
              + " at "
              + server
              + " returned "
              + results.size()
              + " vectors for "
              + inputs.size()
              + " texts");
    }
    List<float[]> vectors = new ArrayList<>(results.size());
    for (Embedding result : results) {
      vectors.add(Vectors.normalize(checkedDimension(result.getOutput().clone())));
    }
    return List.copyOf(vectors);
  }

  private float[] checkedDimension(float[] vector) {
    if (vector.length == 0) {
      throw new IllegalStateException(
          "embedding model " + modelId + " at " + server + " returned an empty vector");
    }
    synchronized (this) {
      if (dimension < 0) {
        dimension = vector.length;
      }
    }
    if (vector.length != dimension) {
      throw new IllegalStateException(
          "embedding model "
              + modelId
              + " at "
              + server
              + " returned a vector of "
              + vector.length
              + " floats, expected "
              + dimension);
    }
    return vector;
  }

  @Override
  public String toString() {
    return "OllamaEmbedder[" + modelId + " at " + server + "]";
  }
}
