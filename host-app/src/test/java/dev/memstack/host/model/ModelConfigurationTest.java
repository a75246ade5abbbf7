package dev.memstack.host.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.LanguageModel.NoLanguageModelException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@DisplayName("The model configuration")
class ModelConfigurationTest {

  private final ApplicationContextRunner context =
      new ApplicationContextRunner()
          .withUserConfiguration(ModelConfiguration.class)
          .withPropertyValues("memstack.models.onnx.warm-up=false");

  @Test
  void defaultsToE5InProcessAndNoChatModel() {
    context.run(
        app -> {
          assertThat(app).hasNotFailed();
          assertThat(app.getBean(ModelProperties.class))
              .isEqualTo(
                  new ModelProperties(
                      null, null, new ModelProperties.Onnx(1, 512, 1, 0, true, false, ""), null));
          assertThat(app).hasSingleBean(Embedder.class).hasSingleBean(LanguageModel.class);
          Embedder embedder = app.getBean(Embedder.class);
          assertThat(embedder).isInstanceOf(OnnxEmbedder.class);
          assertThat(embedder.modelId()).isEqualTo("e5-small-v2");
          assertThat(embedder.dimension()).isEqualTo(384);
          assertThat(((OnnxEmbedder) embedder).loaded()).isFalse();
        });
  }

  @Test
  void bindsEveryDefaultAsTheRecordDefaults() {
    new ApplicationContextRunner()
        .withUserConfiguration(ModelConfiguration.class)
        .run(
            app ->
                assertThat(app.getBean(ModelProperties.class))
                    .isEqualTo(ModelProperties.defaults()));
  }

  @Test
  void withoutAChatModelFeaturesHearThatNoneIsConfigured() {
    context.run(
        app -> {
          LanguageModel chat = app.getBean(LanguageModel.class);
          assertThat(chat).isSameAs(LanguageModel.none());
          assertThat(chat.available()).isFalse();
          assertThatThrownBy(() -> chat.complete("system", "user", Duration.ofSeconds(1)))
              .isInstanceOf(NoLanguageModelException.class)
              .hasMessage("no chat model configured");
        });
  }

  @ParameterizedTest(name = "embedding={0} gives model {1} of {2} floats")
  @CsvSource({
    "e5-small-v2, e5-small-v2, 384",
    "minilm-l6-v2, minilm-l6-v2, 384",
    "bge-small-en-v1.5, bge-small-en-v1.5, 384",
    "bge-small-zh-v1.5, bge-small-zh-v1.5, 512"
  })
  void takesEachInProcessModelByItsName(String value, String modelId, int dimension) {
    context
        .withPropertyValues("memstack.models.embedding=" + value)
        .run(
            app -> {
              Embedder embedder = app.getBean(Embedder.class);
              assertThat(embedder.modelId()).isEqualTo(modelId);
              assertThat(embedder.dimension()).isEqualTo(dimension);
            });
  }

  @Test
  void buildsOllamaModelsFromItsOwnKeysWithoutCallingTheServerAtStart() throws Exception {
    try (FakeOllamaServer ollama = new FakeOllamaServer(8)) {
      context
          .withPropertyValues(
              "memstack.models.embedding=ollama",
              "memstack.models.chat=ollama",
              "memstack.models.ollama.base-url=" + ollama.baseUrl() + "/",
              "memstack.models.ollama.embedding-model=mxbai-embed-large",
              "memstack.models.ollama.chat-model=qwen2.5:3b",
              "memstack.models.ollama.chat-timeout=30s")
          .run(
              app -> {
                assertThat(app).hasNotFailed();
                assertThat(ollama.requests()).isEmpty();
                Embedder embedder = app.getBean(Embedder.class);
                LanguageModel chat = app.getBean(LanguageModel.class);
                assertThat(embedder.modelId()).isEqualTo("ollama:mxbai-embed-large");
                assertThat(chat.modelId()).isEqualTo("ollama:qwen2.5:3b");
                assertThat(chat.available()).isTrue();
                assertThat(embedder.dimension()).isEqualTo(8);
                assertThat(chat.complete("s", "hi", Duration.ofSeconds(5))).isEqualTo("echo: hi");
                assertThat(app.getBean(ModelProperties.class).ollama().chatTimeout())
                    .isEqualTo(Duration.ofSeconds(30));
              });
    }
  }

  @ParameterizedTest(name = "{0}={1} stops the start")
  @CsvSource({
    "memstack.models.embedding, e5-large",
    "memstack.models.chat, gpt",
    "memstack.models.ollama.base-url, localhost:11434",
    "memstack.models.ollama.connect-timeout, 0s",
    "memstack.models.ollama.chat-model, ' '",
    "memstack.models.onnx.batch-size, 0",
    "memstack.models.onnx.max-tokens, 4096",
    "memstack.models.onnx.threads, -1"
  })
  void refusesAWrongValueNamingTheKey(String key, String value) {
    StartRefusals.assertRefusedNamingTheKey(context, key, value);
  }

  /** The models are the host's own beans; of Spring AI only the MCP server auto-configures. */
  @Test
  void pullsInNoSpringAiAutoConfigurationButTheMcpServers() {
    List<String> candidates = new java.util.ArrayList<>();
    ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())
        .forEach(candidates::add);
    assertThat(candidates)
        .isNotEmpty()
        .noneMatch(
            name ->
                name.startsWith("org.springframework.ai")
                    && !name.startsWith("org.springframework.ai.mcp.server."));
  }

  /**
   * The warm-up starts while the context is made, not once the application is ready (which an
   * {@link ApplicationContextRunner} never announces), so the host is ready with its model.
   */
  @Test
  void startsLoadingTheModelWhileTheContextIsMade() {
    new ApplicationContextRunner()
        .withUserConfiguration(ModelConfiguration.class)
        .withPropertyValues("memstack.models.embedding=minilm-l6-v2")
        .run(
            app -> {
              OnnxEmbedder embedder = (OnnxEmbedder) app.getBean(Embedder.class);
              long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
              while (!embedder.loaded() && System.nanoTime() < deadline) {
                Thread.sleep(20);
              }
              assertThat(embedder.loaded()).isTrue();
              assertThat(app.getBean(EmbedderWarmUp.class).failure()).isNull();
            });
  }

  @Test
  void warmsTheInProcessModelUpInTheBackgroundWhenAsked() throws Exception {
    try (OnnxEmbedder embedder =
        new OnnxEmbedder(BundledModel.MINILM_L6_V2, ModelProperties.Onnx.defaults())) {
      assertThat(new EmbedderWarmUp(embedder, false).start()).isNull();
      assertThat(embedder.loaded()).isFalse();
      Thread warmUp = new EmbedderWarmUp(embedder, true).start();
      assertThat(warmUp.isDaemon()).isTrue();
      warmUp.join(30_000);
      assertThat(embedder.loaded()).isTrue();
      assertThat(new EmbedderWarmUp(embedder, true).start()).isNull();
    }
  }
}
