package dev.memstack.host.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@DisplayName("The Ollama settings")
class OllamaSettingsTest {

  private final ApplicationContextRunner context =
      new ApplicationContextRunner()
          .withUserConfiguration(ModelConfiguration.class)
          .withPropertyValues(
              "memstack.models.onnx.warm-up=false",
              "memstack.models.embedding=ollama",
              "memstack.models.chat=ollama");

  /** Stands for the fake Ollama server's base URL in the properties of {@link #runWithOllama}. */
  private static final String OLLAMA = "{ollama}";

  /** What a test checks of the started context and the fake Ollama server it reached. */
  @FunctionalInterface
  private interface OllamaCheck {
    void check(AssertableApplicationContext app, FakeOllamaServer ollama) throws Throwable;
  }

  /** Runs the context with {@code properties} against a fake Ollama server, then {@code check}. */
  private void runWithOllama(OllamaCheck check, String... properties) throws Exception {
    try (FakeOllamaServer ollama = new FakeOllamaServer(8)) {
      String[] values = new String[properties.length];
      for (int i = 0; i < properties.length; i++) {
        values[i] = properties[i].replace(OLLAMA, ollama.baseUrl());
      }
      context.withPropertyValues(values).run(app -> check.check(app, ollama));
    }
  }

  @Test
  void honourSpringAisOwnKeysWhenOursAreNotSet() throws Exception {
    runWithOllama(
        (app, ollama) -> {
          assertThat(app).hasNotFailed();
          Embedder embedder = app.getBean(Embedder.class);
          LanguageModel chat = app.getBean(LanguageModel.class);
          assertThat(embedder.modelId()).isEqualTo("ollama:mxbai-embed-large");
          assertThat(chat.modelId()).isEqualTo("ollama:qwen2.5:3b");
          // both reach the server spring.ai.ollama.base-url names
          assertThat(embedder.dimension()).isEqualTo(8);
          assertThat(chat.complete("s", "hi", Duration.ofSeconds(5))).isEqualTo("echo: hi");
          assertThat(ollama.requests()).isNotEmpty();
        },
        "spring.ai.ollama.base-url=" + OLLAMA,
        "spring.ai.ollama.embedding.options.model=mxbai-embed-large",
        "spring.ai.ollama.chat.options.model=qwen2.5:3b");
  }

  @Test
  void takeTheShortFormsOfTheModelKeys() {
    context
        .withPropertyValues(
            "spring.ai.ollama.embedding.model=nomic-embed-text:v1.5",
            "spring.ai.ollama.chat.model=llama3.1")
        .run(
            app -> {
              assertThat(app.getBean(Embedder.class).modelId())
                  .isEqualTo("ollama:nomic-embed-text:v1.5");
              assertThat(app.getBean(LanguageModel.class).modelId()).isEqualTo("ollama:llama3.1");
            });
  }

  @Test
  void letOurKeysWinWhenBothAreSet() throws Exception {
    runWithOllama(
        (app, ollama) -> {
          LanguageModel chat = app.getBean(LanguageModel.class);
          assertThat(chat.modelId()).isEqualTo("ollama:qwen2.5:3b");
          assertThat(chat.complete("s", "hi", Duration.ofSeconds(5))).isEqualTo("echo: hi");
          // the embedding model is not set under memstack.*, so Spring AI's name counts
          assertThat(app.getBean(Embedder.class).modelId()).isEqualTo("ollama:mxbai-embed-large");
        },
        "memstack.models.ollama.base-url=" + OLLAMA,
        "memstack.models.ollama.chat-model=qwen2.5:3b",
        "spring.ai.ollama.base-url=http://127.0.0.1:9",
        "spring.ai.ollama.chat.options.model=mistral",
        "spring.ai.ollama.embedding.options.model=mxbai-embed-large");
  }

  @ParameterizedTest(name = "{0} stops the start naming the key")
  @ValueSource(
      strings = {
        "spring.ai.ollama.base-url=localhost:11434",
        "spring.ai.ollama.chat.options.model= ",
        "spring.ai.ollama.embedding.model= "
      })
  void refuseAWrongSpringAiValueNamingItsKey(String property) {
    String key = property.substring(0, property.indexOf('='));
    StartRefusals.assertRefusedNamingTheKey(context, key, property.substring(key.length() + 1));
  }

  @Test
  void keepOurValuesWhenNoSpringAiKeyIsSet() {
    ModelProperties.Ollama bound = ModelProperties.Ollama.defaults().withBaseUrl("http://h:1");
    Binder binder = new Binder(new MapConfigurationPropertySource(Map.of("other.key", "x")));
    assertThat(OllamaSettings.resolve(bound, binder)).isEqualTo(bound);
  }
}
