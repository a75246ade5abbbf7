package dev.memstack.host.window;

import static org.assertj.core.api.Assertions.assertThat;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The token counter: the OpenAI models counted by JTokkit's own encodings, and the estimate of
 * every other model never more than 10 % under {@code cl100k_base} or {@code o200k_base} on the
 * committed English, Chinese and code samples, learning upwards only from reported prompt sizes.
 */
class TokenCounterTest {

  private static final EncodingRegistry JTOKKIT = Encodings.newDefaultEncodingRegistry();

  private final TokenCounter counter = new TokenCounter();

  static String sample(String name) {
    try (InputStream in = TokenCounterTest.class.getResourceAsStream("/window/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int real(EncodingType type, String text) {
    return JTOKKIT.getEncoding(type).countTokensOrdinary(text);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"english.txt", "chinese.txt", "code.txt"})
  void theEstimateNeverUndercountsEitherEncodingByMoreThanTenPercent(String name) {
    String text = sample(name);
    int estimate = counter.count("ollama:llama3.2", text);
    for (EncodingType type :
        new EncodingType[] {EncodingType.CL100K_BASE, EncodingType.O200K_BASE}) {
      int tokens = real(type, text);
      assertThat(estimate)
          .as("%s: estimate %d against %s %d", name, estimate, type.getName(), tokens)
          .isGreaterThanOrEqualTo((int) Math.ceil(tokens * 0.9));
    }
  }

  @Test
  void chineseIsCountedAgainstTheTokenizersOwnCounts() {
    String text = sample("chinese.txt");
    // the OpenAI models count with JTokkit itself, CJK included
    assertThat(counter.count("gpt-4", text)).isEqualTo(real(EncodingType.CL100K_BASE, text));
    assertThat(counter.count("gpt-4o-mini", text)).isEqualTo(real(EncodingType.O200K_BASE, text));
    // a Chinese text costs far more tokens than its characters / 4: the estimate sees that
    int estimate = counter.count("qwen2.5", text);
    assertThat(estimate).isGreaterThan(text.length() / 2);
    assertThat(estimate)
        .isGreaterThanOrEqualTo((int) Math.ceil(real(EncodingType.CL100K_BASE, text) * 0.9));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "gpt-4o, jtokkit:o200k_base",
    "openai:gpt-4.1-mini, jtokkit:o200k_base",
    "o3-mini, jtokkit:o200k_base",
    "ollama:gpt-oss:20b, jtokkit:o200k_base",
    "gpt-4-turbo, jtokkit:cl100k_base",
    "gpt-3.5-turbo, jtokkit:cl100k_base",
    "ollama:llama3.2, estimate",
    "qwen2.5:7b, estimate",
    "none, estimate"
  })
  void eachModelGetsItsCounter(String model, String expected) {
    assertThat(counter.counterName(model)).isEqualTo(expected);
  }

  @Test
  void aReportedPromptSizeRaisesTheEstimateAtOnceAndLowersItOnlySlowlyAndNeverBelowThePlainOne() {
    String text = sample("english.txt");
    int plain = counter.count("llama3.2", text);

    counter.observe("llama3.2", plain, plain * 2);
    assertThat(counter.correction("llama3.2")).isEqualTo(2.0);
    assertThat(counter.count("llama3.2", text)).isGreaterThanOrEqualTo(plain * 2 - 1);
    // another model is not affected
    assertThat(counter.count("mistral", text)).isEqualTo(plain);

    // a smaller report lowers it a tenth of the way, never below 1
    counter.observe("llama3.2", counter.count("llama3.2", text), plain);
    assertThat(counter.correction("llama3.2")).isBetween(1.85, 1.95);
    for (int i = 0; i < 200; i++) {
      counter.observe("llama3.2", counter.count("llama3.2", text), plain / 2);
    }
    assertThat(counter.correction("llama3.2")).isEqualTo(1.0);
    assertThat(counter.count("llama3.2", text)).isEqualTo(plain);

    // bounded above
    counter.observe("llama3.2", plain, plain * 100);
    assertThat(counter.correction("llama3.2")).isEqualTo(TokenCounter.MAX_CORRECTION);
    // real tokenizers do not learn
    counter.observe("gpt-4o", 10, 1000);
    assertThat(counter.correction("gpt-4o")).isEqualTo(1.0);
  }

  @Test
  void aMessageAddsItsFraming() {
    assertThat(counter.message("llama3.2", "")).isEqualTo(TokenCounter.MESSAGE_OVERHEAD);
    assertThat(counter.message("gpt-4o", "hello")).isEqualTo(1 + TokenCounter.MESSAGE_OVERHEAD);
  }
}
