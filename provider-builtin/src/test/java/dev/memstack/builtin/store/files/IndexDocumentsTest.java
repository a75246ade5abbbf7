package dev.memstack.builtin.store.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The dense view's vectors: encoded, decoded and compared from their bytes")
class IndexDocumentsTest {

  @Test
  @DisplayName("the cosine read from the bytes is the one of the decoded vectors, at any length")
  void cosineFromTheBytesMatchesThePlainComputation() {
    SplittableRandom random = new SplittableRandom(7);
    for (int length : new int[] {1, 3, 4, 5, 7, 384, 385}) {
      for (int n = 0; n < 50; n++) {
        float[] query = randomVector(random, length);
        float[] candidate = randomVector(random, length);
        // at an offset inside a larger array, as doc values hand it out
        byte[] encoded = IndexDocuments.encodeVector(candidate);
        byte[] padded = new byte[encoded.length + 11];
        System.arraycopy(encoded, 0, padded, 5, encoded.length);
        BytesRef bytes = new BytesRef(padded, 5, encoded.length);

        float cosine = IndexDocuments.cosine(query, norm(query), bytes);

        assertThat(cosine).isCloseTo(plainCosine(query, candidate), within(1e-6f));
        assertThat(IndexDocuments.decodeVector(bytes)).containsExactly(candidate);
      }
    }
  }

  @Test
  @DisplayName("another length is NaN (never compared) and a zero vector scores 0")
  void otherLengthsAreNotComparedAndZeroVectorsScoreZero() {
    float[] query = {0.5f, 0.5f, 0.5f, 0.5f};
    BytesRef shorter = new BytesRef(IndexDocuments.encodeVector(new float[] {1f, 0f, 0f}));
    BytesRef zero = new BytesRef(IndexDocuments.encodeVector(new float[4]));

    assertThat(IndexDocuments.cosine(query, norm(query), shorter)).isNaN();
    assertThat(IndexDocuments.cosine(query, norm(query), zero)).isZero();
    assertThat(IndexDocuments.cosine(query, norm(query), new BytesRef(new byte[0]))).isNaN();
  }

  private static float[] randomVector(SplittableRandom random, int length) {
    float[] vector = new float[length];
    for (int i = 0; i < length; i++) {
      vector[i] = (float) (random.nextDouble() * 2 - 1);
    }
    return vector;
  }

  private static double norm(float[] vector) {
    double sum = 0;
    for (float value : vector) {
      sum += value * value;
    }
    return Math.sqrt(sum);
  }

  /** The computation the dense search made before it read the bytes directly. */
  private static float plainCosine(float[] query, float[] candidate) {
    double dot = 0;
    double squares = 0;
    for (int i = 0; i < query.length; i++) {
      dot += query[i] * candidate[i];
      squares += candidate[i] * candidate[i];
    }
    double norms = norm(query) * Math.sqrt(squares);
    return norms == 0 ? 0f : (float) (dot / norms);
  }
}
