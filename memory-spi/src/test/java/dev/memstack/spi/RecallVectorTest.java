package dev.memstack.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@link RecallVector} and the vector a {@link RecallItem} may carry. */
class RecallVectorTest {

  @Test
  @DisplayName("the values are copied in and out, so no caller can change a vector")
  void copiesValues() {
    float[] values = {1f, 2f};
    RecallVector vector = new RecallVector("e5", values);
    values[0] = 9f;
    vector.values()[1] = 9f;
    assertThat(vector.values()).containsExactly(1f, 2f);
    assertThat(vector.dimension()).isEqualTo(2);
  }

  @Test
  @DisplayName("a blank model, an empty vector or a value that is not finite is refused")
  void refusesBadVectors() {
    assertThatThrownBy(() -> new RecallVector(" ", new float[] {1f})).hasMessageContaining("model");
    assertThatThrownBy(() -> new RecallVector("e5", new float[0])).hasMessageContaining("empty");
    assertThatThrownBy(() -> new RecallVector("e5", new float[] {Float.NaN}))
        .hasMessageContaining("finite");
  }

  @Test
  @DisplayName("cosine ignores length, and a length mismatch is refused")
  void cosine() {
    RecallVector vector = new RecallVector("e5", new float[] {3f, 0f});
    assertThat(vector.cosine(new float[] {1f, 1f})).isCloseTo(Math.sqrt(0.5), within(1e-9));
    assertThat(vector.cosine(new float[] {0f, 0f})).isZero();
    assertThatThrownBy(() -> vector.cosine(new float[] {1f})).hasMessageContaining("dimension");
  }

  @Test
  @DisplayName("equal model and values are equal; the string form shows no values")
  void equality() {
    RecallVector a = new RecallVector("e5", new float[] {1f, 2f});
    assertThat(a).isEqualTo(new RecallVector("e5", new float[] {1f, 2f}));
    assertThat(a).hasSameHashCodeAs(new RecallVector("e5", new float[] {1f, 2f}));
    assertThat(a).isNotEqualTo(new RecallVector("bge", new float[] {1f, 2f}));
    assertThat(a.toString()).isEqualTo("RecallVector[model=e5, dimension=2]");
  }

  @Test
  @DisplayName("an item has no vector unless given one, and keeps it through its copies")
  void itemsKeepTheirVector() {
    RecallItem plain = new RecallItem("a memory", 0.5, Scope.TEAM, null, "p", null, null);
    assertThat(plain.vector()).isNull();
    RecallVector vector = new RecallVector("e5", new float[] {1f});
    RecallItem carrying = plain.withVector(vector);
    assertThat(carrying.vector()).isEqualTo(vector);
    assertThat(carrying.withScore(0.9).vector()).isEqualTo(vector);
    assertThat(carrying.withText("another").vector()).isEqualTo(vector);
    assertThat(carrying.withVector(null).vector()).isNull();
  }
}
