package dev.memstack.host.model;

import static dev.memstack.host.model.OnnxEmbedderTest.dot;
import static dev.memstack.host.model.OnnxEmbedderTest.norm;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.memstack.spi.Embedder.Kind;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("Each bundled model")
class BundledModelsTest {

  @ParameterizedTest(name = "{0} loads and gives {1} floats")
  @CsvSource({"MINILM_L6_V2, 384", "BGE_SMALL_EN_V1_5, 384", "BGE_SMALL_ZH_V1_5, 512"})
  void loadsAndGivesItsDimension(BundledModel model, int dimension) {
    try (OnnxEmbedder embedder = new OnnxEmbedder(model, ModelProperties.Onnx.defaults())) {
      assertThat(embedder.dimension()).isEqualTo(dimension);
      assertThat(embedder.modelId()).isEqualTo(model.id());
      List<float[]> vectors =
          embedder.embed(List.of("I adopted a greyhound", "我养了一只灰狗"), Kind.PASSAGE);
      assertThat(vectors).allSatisfy(v -> assertThat(v).hasSize(dimension));
      assertThat(vectors).allSatisfy(v -> assertThat(norm(v)).isCloseTo(1.0, within(1e-5)));
      assertThat(embedder.loaded()).isTrue();
    }
  }

  /**
   * The first floats of each model's passage vector, as LangChain4j's own ONNX embedding models
   * compute them from the same jars: this pins tokenisation, prefixes, pooling and normalisation.
   */
  @ParameterizedTest(name = "{0} matches the reference implementation")
  @CsvSource({
    "E5_SMALL_V2, -0.08765, 0.01726, 0.02663, 0.01383",
    "MINILM_L6_V2, -0.07202, 0.00238, 0.05067, 0.01049",
    "BGE_SMALL_EN_V1_5, -0.03869, -0.02525, 0.02788, -0.03936",
    "BGE_SMALL_ZH_V1_5, -0.04434, 0.01316, 0.04052, -0.05073"
  })
  void matchesTheReferenceImplementation(
      BundledModel model, float first, float second, float third, float fourth) {
    try (OnnxEmbedder embedder = new OnnxEmbedder(model, ModelProperties.Onnx.defaults())) {
      float[] vector =
          embedder
              .embed(
                  List.of("I adopted a retired greyhound named Biscuit last spring"), Kind.PASSAGE)
              .get(0);
      assertThat(new float[] {vector[0], vector[1], vector[2], vector[3]})
          .containsExactly(new float[] {first, second, third, fourth}, within(2e-4f));
    }
  }

  @Test
  void e5QueriesMatchTheReferenceImplementation() {
    try (OnnxEmbedder e5 =
        new OnnxEmbedder(BundledModel.E5_SMALL_V2, ModelProperties.Onnx.defaults())) {
      float[] query = e5.embedQuery("what kind of dog do I have?");
      assertThat(new float[] {query[0], query[1], query[2], query[3]})
          .containsExactly(new float[] {-0.04620f, 0.03485f, 0.07354f, 0.03474f}, within(2e-4f));
    }
  }

  @Test
  void bgeSmallZhPutsAChineseParaphraseCloserThanAnUnrelatedSentence() {
    try (OnnxEmbedder zh =
        new OnnxEmbedder(BundledModel.BGE_SMALL_ZH_V1_5, ModelProperties.Onnx.defaults())) {
      float[] query = zh.embedQuery("我养的是什么狗？");
      List<float[]> passages =
          zh.embed(List.of("去年春天我收养了一只退役的灵缇犬，名叫饼干。", "季度税务报告周五到期。"), Kind.PASSAGE);
      assertThat(dot(query, passages.get(0))).isGreaterThan(dot(query, passages.get(1)) + 0.05);
    }
  }

  @Test
  void bgeQueriesGetTheInstructionUnlessItIsSwitchedOff() {
    ModelProperties.Onnx withInstruction = ModelProperties.Onnx.defaults();
    ModelProperties.Onnx without = new ModelProperties.Onnx(1, 512, 1, 0, false, false, "");
    try (OnnxEmbedder on = new OnnxEmbedder(BundledModel.BGE_SMALL_EN_V1_5, withInstruction);
        OnnxEmbedder off = new OnnxEmbedder(BundledModel.BGE_SMALL_EN_V1_5, without)) {
      String text = "what kind of dog do I have?";
      assertThat(on.embedQuery(text)).isNotEqualTo(off.embedQuery(text));
      assertThat(off.embedQuery(text))
          .containsExactly(off.embed(List.of(text), Kind.PASSAGE).get(0));
      assertThat(on.embed(List.of(text), Kind.PASSAGE).get(0))
          .containsExactly(off.embed(List.of(text), Kind.PASSAGE).get(0));
    }
  }
}
