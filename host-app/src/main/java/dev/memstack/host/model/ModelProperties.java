package dev.memstack.host.model;

import static dev.memstack.host.SettingChecks.between;
import static dev.memstack.host.SettingChecks.positive;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the host's models ({@code memstack.models.*}). A missing value takes its default; a
 * wrong value stops the host at start with a message naming the key.
 *
 * <p>Ollama is configured under {@code memstack.models.ollama.*}. The host builds its Ollama
 * clients itself (no Spring AI auto-configuration is on the class path), so Spring AI's own keys
 * are read by {@link OllamaSettings}: {@code spring.ai.ollama.base-url} and the chat and embedding
 * model names count where the memstack key is not set.
 *
 * @param embedding Embedding model: e5-small-v2, minilm-l6-v2, bge-small-en-v1.5, bge-small-zh-v1.5
 *     (in process) or ollama. Stores record the model id with their vectors and never mix vectors
 *     of two models.
 * @param chat Chat model: none (features that need one report "no chat model configured") or
 *     ollama.
 * @param onnx Settings of the in-process embedding models.
 * @param ollama The Ollama server and its models, used when embedding or chat is ollama.
 */
@ConfigurationProperties("memstack.models")
public record ModelProperties(
    @DefaultValue("e5-small-v2") EmbeddingChoice embedding,
    @DefaultValue("none") ChatChoice chat,
    @DefaultValue Onnx onnx,
    @DefaultValue Ollama ollama) {

  public ModelProperties {
    embedding = embedding == null ? EmbeddingChoice.E5_SMALL_V2 : embedding;
    chat = chat == null ? ChatChoice.NONE : chat;
    onnx = onnx == null ? Onnx.defaults() : onnx;
    ollama = ollama == null ? Ollama.defaults() : ollama;
  }

  /** Every setting at its default: E5 in process, no chat model. */
  public static ModelProperties defaults() {
    return new ModelProperties(null, null, null, null);
  }

  /** The values of {@code memstack.models.embedding}. */
  public enum EmbeddingChoice {
    E5_SMALL_V2(BundledModel.E5_SMALL_V2),
    MINILM_L6_V2(BundledModel.MINILM_L6_V2),
    BGE_SMALL_EN_V1_5(BundledModel.BGE_SMALL_EN_V1_5),
    BGE_SMALL_ZH_V1_5(BundledModel.BGE_SMALL_ZH_V1_5),
    OLLAMA(null);

    private final BundledModel bundledModel;

    EmbeddingChoice(BundledModel bundledModel) {
      this.bundledModel = bundledModel;
    }

    /** The in-process model, or {@code null} for {@link #OLLAMA}. */
    public BundledModel bundledModel() {
      return bundledModel;
    }
  }

  /** The values of {@code memstack.models.chat}. */
  public enum ChatChoice {
    NONE,
    OLLAMA
  }

  /**
   * The in-process embedding models ({@code memstack.models.onnx.*}).
   *
   * @param batchSize Most texts run through the model at once. 1 runs every text alone, so a text's
   *     vector depends only on the text. Larger batches (texts sorted by length, padded to the
   *     longest) embed faster on a CPU, but the bundled models are quantised with one activation
   *     scale per batch, so a vector then shifts a little (cosine about 0.99) with the texts that
   *     share its batch.
   * @param maxTokens Most tokens of one text, special tokens included; longer texts are cut. The
   *     bundled models take at most 512.
   * @param threads Threads onnxruntime uses inside one model run; 0 lets onnxruntime choose (one
   *     per core). With the texts of a call spread over the cores (parallelism), one thread per run
   *     costs less CPU and less wall time (measured), so the default is 1.
   * @param parallelism Model runs of one call that go at once, each on its own thread: a call with
   *     many texts (a batch of turns, re-embedding) spreads them over this many cores; 0 means one
   *     per core. A single query always runs alone.
   * @param queryInstruction Whether BGE models get their query instruction in front of queries, as
   *     BGE recommends for short queries against passages. E5's "query: "/"passage: " prefixes are
   *     always added; MiniLM has none.
   * @param warmUp Whether the model loads in the background during the start (once the providers
   *     have started), so that the host is ready with it and the first request does not wait for
   *     it; otherwise it loads on first use.
   * @param preparedDir Folder for the model as onnxruntime prepared it (unpacked from its jar, its
   *     graph optimised), written on the first load and read on later ones, which then take ~0.1 s
   *     instead of ~0.5 s. Empty (the default) keeps nothing; the launcher dist/memstack sets it to
   *     a folder of the distribution.
   */
  public record Onnx(
      @DefaultValue("1") int batchSize,
      @DefaultValue("512") int maxTokens,
      @DefaultValue("1") int threads,
      @DefaultValue("0") int parallelism,
      @DefaultValue("true") boolean queryInstruction,
      @DefaultValue("true") boolean warmUp,
      @DefaultValue("") String preparedDir) {

    public Onnx {
      between(batchSize, 1, 1024, "memstack.models.onnx.batch-size");
      between(maxTokens, 8, 512, "memstack.models.onnx.max-tokens");
      between(threads, 0, 256, "memstack.models.onnx.threads");
      between(parallelism, 0, 256, "memstack.models.onnx.parallelism");
      preparedDir = preparedDir == null ? "" : preparedDir.strip();
    }

    /** The model runs that may go at once: {@code parallelism}, or one per core when 0. */
    public int effectiveParallelism() {
      return parallelism > 0 ? parallelism : Runtime.getRuntime().availableProcessors();
    }

    // one constructor only: configuration binding needs to know which one to use
    /** A copy that keeps the prepared model in {@code folder}. */
    public Onnx withPreparedDir(String folder) {
      return new Onnx(batchSize, maxTokens, threads, parallelism, queryInstruction, warmUp, folder);
    }

    public static Onnx defaults() {
      return new Onnx(1, 512, 1, 0, true, true, "");
    }
  }

  /**
   * The Ollama server ({@code memstack.models.ollama.*}).
   *
   * @param baseUrl Base URL of the Ollama server.
   * @param embeddingModel Ollama embedding model, used when memstack.models.embedding=ollama; the
   *     model id recorded with vectors is "ollama:" followed by this name.
   * @param chatModel Ollama chat model, used when memstack.models.chat=ollama.
   * @param queryPrefix Text put in front of every query before embedding; some models want one,
   *     e.g. "search_query: " for nomic-embed-text.
   * @param passagePrefix Text put in front of every stored passage before embedding, e.g.
   *     "search_document: " for nomic-embed-text.
   * @param connectTimeout Longest a connection to the Ollama server may take.
   * @param embeddingTimeout Longest one embedding request may take; the first one may load the
   *     model.
   * @param chatTimeout Longest one chat completion may take, whatever longer timeout a caller asks
   *     for.
   */
  public record Ollama(
      @DefaultValue("http://localhost:11434") String baseUrl,
      @DefaultValue("nomic-embed-text") String embeddingModel,
      @DefaultValue("llama3.2") String chatModel,
      @DefaultValue("") String queryPrefix,
      @DefaultValue("") String passagePrefix,
      @DefaultValue("5s") Duration connectTimeout,
      @DefaultValue("60s") Duration embeddingTimeout,
      @DefaultValue("5m") Duration chatTimeout) {

    public Ollama {
      baseUrl = httpUrl(baseUrl, "http://localhost:11434", "memstack.models.ollama.base-url");
      embeddingModel =
          modelName(embeddingModel, "nomic-embed-text", "memstack.models.ollama.embedding-model");
      chatModel = modelName(chatModel, "llama3.2", "memstack.models.ollama.chat-model");
      queryPrefix = Objects.requireNonNullElse(queryPrefix, "");
      passagePrefix = Objects.requireNonNullElse(passagePrefix, "");
      connectTimeout =
          positive(connectTimeout, Duration.ofSeconds(5), "memstack.models.ollama.connect-timeout");
      embeddingTimeout =
          positive(
              embeddingTimeout, Duration.ofSeconds(60), "memstack.models.ollama.embedding-timeout");
      chatTimeout =
          positive(chatTimeout, Duration.ofMinutes(5), "memstack.models.ollama.chat-timeout");
    }

    public static Ollama defaults() {
      return new Ollama(null, null, null, null, null, null, null, null);
    }

    /** These settings with another base URL (as tests need for a server on a free port). */
    public Ollama withBaseUrl(String newBaseUrl) {
      return withServer(newBaseUrl, embeddingModel, chatModel);
    }

    /** These settings with another server and models; the prefixes and timeouts stay. */
    public Ollama withServer(String newBaseUrl, String newEmbeddingModel, String newChatModel) {
      return new Ollama(
          newBaseUrl,
          newEmbeddingModel,
          newChatModel,
          queryPrefix,
          passagePrefix,
          connectTimeout,
          embeddingTimeout,
          chatTimeout);
    }
  }

  static String httpUrl(String value, String fallback, String key) {
    if (value == null) {
      return fallback;
    }
    String trimmed = value.strip();
    URI uri;
    try {
      uri = URI.create(trimmed);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + " is not a URL: '" + value + "'", e);
    }
    if (!("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
        || uri.getHost() == null) {
      throw new IllegalArgumentException(
          key
              + " must be an http(s) URL with a host, e.g. http://localhost:11434, got: '"
              + value
              + "'");
    }
    return trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
  }

  static String modelName(String value, String fallback, String key) {
    if (value == null) {
      return fallback;
    }
    if (value.isBlank()) {
      throw new IllegalArgumentException(key + " must not be blank");
    }
    return value.strip();
  }
}
