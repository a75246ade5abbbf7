package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Four decimals without a Formatter")
class DecimalsTest {

  @Test
  @DisplayName("writes what %.4f writes, at rounding edges, for negatives, zeros and non-finite")
  void likeStringFormatAtTheEdges() {
    double[] edges = {
      0,
      -0.0,
      0.5,
      1,
      -1,
      0.15,
      0.00005,
      -0.00005,
      0.00015,
      0.00004999999999999999,
      1.00005,
      0.99995,
      0.999951,
      2.00025,
      0.12345,
      0.30000000000000004,
      -0.00001,
      4.35,
      1e-10,
      1e-320,
      Double.MIN_VALUE,
      12345678.12345,
      1e20,
      -1e20,
      Double.MAX_VALUE,
      Double.NaN,
      Double.POSITIVE_INFINITY,
      Double.NEGATIVE_INFINITY
    };
    for (double value : edges) {
      assertSame(value);
    }
    for (int n = 0; n <= 40_000; n++) { // every tie up to 4.0001, and its neighbours
      double tie = (2 * n + 1) / 20_000.0;
      assertSame(tie);
      assertSame(Math.nextUp(tie));
      assertSame(Math.nextDown(tie));
      assertSame(-tie);
    }
    assertThat(Decimals.fourPlaces(null)).isEmpty();
  }

  @Test
  @DisplayName("writes what %.4f writes for 720,000 random values of every magnitude")
  void likeStringFormatOnRandomValues() {
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 200_000; i++) {
      assertSame(random.nextDouble());
      assertSame((random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(-8, 12)));
    }
    for (int i = 0; i < 100_000; i++) { // ties and their neighbours up to 200,000
      double tie = (2L * random.nextInt(2_000_000_000) + 1) / 20_000.0;
      assertSame(tie);
      assertSame(Math.nextUp(tie));
      assertSame(-Math.nextDown(tie));
    }
    for (int i = 0; i < 20_000; i++) { // any bit pattern: huge, tiny, subnormal, NaN
      assertSame(Double.longBitsToDouble(random.nextLong()));
    }
  }

  private static void assertSame(double value) {
    String expected = String.format(Locale.ROOT, "%.4f", value);
    String actual = Decimals.fourPlaces(value);
    if (!expected.equals(actual)) { // assertThat per value would dominate the run time
      assertThat(actual).as("fourPlaces(%s)", value).isEqualTo(expected);
    }
  }
}
