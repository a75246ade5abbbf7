package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The model file, and which ranking a host ends up with. */
class RankingModelTest {

  static final String LINEAR =
      """
      {"format": "memstack-ranking/1", "name": "tiny", "embeddingModel": "e5-small-v2",
       "features": ["cosine", "short"], "mean": [0.5, 0.0], "scale": [0.25, 1.0],
       "weights": [2.0, -3.0], "bias": 0.0}
      """;

  private static RankingModel read(String json) throws IOException {
    return RankingModel.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  @DisplayName("a linear model scores standardised features; contributions add up to the score")
  void linear() throws IOException {
    RankingModel model = read(LINEAR);

    double[] x = {0.75, 1};
    assertThat(model.score(x)).isCloseTo(2.0 * 1 - 3.0, within(1e-12));
    assertThat(model.contributions(x)).containsExactly(2.0, -3.0);
  }

  @Test
  @DisplayName("with ReLU units the contributions still add up to the score less its constants")
  void hidden() throws IOException {
    RankingModel model =
        read(
            LINEAR.replace(
                "\"bias\": 0.0",
                "\"bias\": 0.5, \"hidden\": {\"weights\": [[1.0, 1.0], [-1.0, 0.0]],"
                    + " \"bias\": [0.25, 0.0], \"out\": [2.0, 5.0]}"));

    double[] x = {0.75, 1}; // z = (1, 1): unit 0 = 2.25 (active), unit 1 = -1 (inactive)
    assertThat(model.score(x)).isCloseTo(0.5 + 2 - 3 + 2 * 2.25, within(1e-12));
    double sum = 0;
    for (double c : model.contributions(x)) {
      sum += c;
    }
    assertThat(sum).isCloseTo(model.score(x) - 0.5 - 2 * 0.25, within(1e-12));
  }

  @Test
  @DisplayName("a bad model file is refused with what is wrong")
  void refused() {
    assertThatThrownBy(() -> read(LINEAR.replace("memstack-ranking/1", "other/9")))
        .hasMessageContaining("format");
    assertThatThrownBy(() -> read(LINEAR.replace("\"short\"", "\"shoe size\"")))
        .hasMessageContaining("'shoe size'");
    assertThatThrownBy(() -> read(LINEAR.replace("[2.0, -3.0]", "[2.0]")))
        .hasMessageContaining("one length");
    assertThatThrownBy(() -> read(LINEAR.replace("[0.25, 1.0]", "[0.25, 0.0]")))
        .hasMessageContaining("'short'");
  }

  @Test
  @DisplayName(
      "the host falls back to the fusion and says why: none, missing, unreadable, other model")
  void fallbacks(@TempDir Path dir) throws IOException {
    assertThat(LearnedRanking.load("none", "e5-small-v2").active()).isFalse();

    LearnedRanking missing =
        LearnedRanking.load(dir.resolve("nope.json").toString(), "e5-small-v2");
    assertThat(missing.active()).isFalse();
    assertThat(missing.reason()).contains("does not exist").contains("nope.json");

    Path broken = Files.writeString(dir.resolve("broken.json"), "{\"format\": ");
    assertThat(LearnedRanking.load(broken.toString(), "e5-small-v2").reason())
        .contains("cannot be read");

    Path tiny = Files.writeString(dir.resolve("tiny.json"), LINEAR);
    LearnedRanking other = LearnedRanking.load(tiny.toString(), "all-minilm-l6-v2");
    assertThat(other.active()).isFalse();
    assertThat(other.reason()).contains("'e5-small-v2'").contains("'all-minilm-l6-v2'");
    assertThat(LearnedRanking.load(tiny.toString(), null).reason()).contains("no embedding model");

    LearnedRanking used = LearnedRanking.load(tiny.toString(), "e5-small-v2");
    assertThat(used.active()).isTrue();
    assertThat(used.describe()).isEqualTo("learned:tiny");
  }

  @Test
  @DisplayName("the shipped model loads for the default embedding model")
  void shipped() {
    LearnedRanking shipped = LearnedRanking.load("", "e5-small-v2");

    assertThat(shipped.active()).as(String.valueOf(shipped.reason())).isTrue();
    assertThat(shipped.model().features()).contains("cosine", "fusion", "speaker.asked");
  }
}
