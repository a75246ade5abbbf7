package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.memstack.spi.Embedder.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

class HashingEmbedderTest {

  private final HashingEmbedder embedder = new HashingEmbedder();

  @Test
  void namesItsModelAndDimension() {
    assertThat(embedder.modelId()).isEqualTo("hashing-384");
    assertThat(embedder.dimension()).isEqualTo(384);
  }

  @Test
  void returnsUnitVectorsOfTheDeclaredDimensionInOrder() {
    List<float[]> vectors = embedder.embed(List.of("alpha beta", "", "gamma", "!!!"), Kind.PASSAGE);

    assertThat(vectors).hasSize(4);
    for (float[] v : vectors) {
      assertThat(v).hasSize(384);
      assertThat(norm(v)).isCloseTo(1.0, within(1e-5));
    }
    assertThat(vectors.get(0)).isNotEqualTo(vectors.get(2));
  }

  @Test
  void isDeterministicAndIgnoresCaseAndPunctuation() {
    float[] a = embedder.embedQuery("Marmalade, Zeppelin!");
    float[] b = embedder.embed(List.of("marmalade zeppelin"), Kind.PASSAGE).get(0);

    assertThat(a).containsExactly(b);
    assertThat(new HashingEmbedder().embedQuery("Marmalade, Zeppelin!")).containsExactly(a);
  }

  @Test
  void placesTextsThatShareWordsCloserThanTextsThatDoNot() {
    float[] query = embedder.embedQuery("my band marmalade zeppelin quartet");
    float[] sharing = embedder.embedQuery("the marmalade zeppelin quartet played tonight");
    float[] unrelated = embedder.embedQuery("grey windy weather with rain showers");

    assertThat(dot(query, sharing)).isGreaterThan(0.4);
    assertThat(dot(query, unrelated)).isLessThan(dot(query, sharing) - 0.3);
  }

  @Test
  void cutsCjkRunsIntoBigramsAndKeepsLatinWordsWhole() {
    assertThat(HashingEmbedder.tokens("我喜欢猫 and Cats2"))
        .containsExactly("我喜", "喜欢", "欢猫", "and", "cats2");
    assertThat(HashingEmbedder.tokens("猫")).containsExactly("猫");
    assertThat(HashingEmbedder.tokens("  ,.; ")).isEmpty();
  }

  @Test
  void matchesChineseTextsThatShareCharacterPairs() {
    float[] query = embedder.embedQuery("我喜欢猫");
    float[] sharing = embedder.embedQuery("他说我喜欢猫和狗");
    float[] unrelated = embedder.embedQuery("明天天气很好");

    assertThat(dot(query, sharing)).isGreaterThan(dot(query, unrelated) + 0.3);
  }

  private static double norm(float[] v) {
    return Math.sqrt(dot(v, v));
  }

  private static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += a[i] * b[i];
    }
    return sum;
  }
}
