package dev.memstack.host.model;

import static dev.memstack.host.model.OnnxEmbedderTest.dot;
import static dev.memstack.host.model.OnnxEmbedderTest.norm;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.memstack.host.testing.FakeOllamaServer;
import dev.memstack.spi.Embedder.Kind;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.ollama.OllamaChatModel;
import tools.jackson.databind.JsonNode;

@DisplayName("Ollama behind the ports, against a fake Ollama server")
class OllamaModelsTest {

  private FakeOllamaServer ollama;
  private ModelProperties.Ollama settings;

  @BeforeEach
  void startServer() throws Exception {
    ollama = new FakeOllamaServer(16);
    settings =
        new ModelProperties.Ollama(
            ollama.baseUrl(),
            "nomic-embed-text",
            "llama3.2",
            "search_query: ",
            "search_document: ",
            Duration.ofSeconds(2),
            Duration.ofSeconds(5),
            Duration.ofSeconds(5));
  }

  @AfterEach
  void stopServer() {
    ollama.close();
  }

  @Nested
  @DisplayName("the embedder")
  class TheEmbedder {

    @Test
    void isNamedAfterTheOllamaModel() {
      assertThat(OllamaEmbedder.create(settings).modelId()).isEqualTo("ollama:nomic-embed-text");
    }

    @Test
    void learnsItsDimensionWithOneCallAndRemembersIt() {
      OllamaEmbedder embedder = OllamaEmbedder.create(settings);
      assertThat(ollama.requests()).isEmpty();
      assertThat(embedder.dimension()).isEqualTo(16);
      assertThat(embedder.dimension()).isEqualTo(16);
      assertThat(ollama.requests("/api/embed")).hasSize(1);
    }

    @Test
    void knowsItsDimensionFromTheFirstEmbeddingWithoutAskingAgain() {
      OllamaEmbedder embedder = OllamaEmbedder.create(settings);
      embedder.embedQuery("hello");
      assertThat(embedder.dimension()).isEqualTo(16);
      assertThat(ollama.requests("/api/embed")).hasSize(1);
    }

    @Test
    void sendsAllTextsInOneRequestWithTheirPrefixesAndModel() {
      OllamaEmbedder embedder = OllamaEmbedder.create(settings);
      List<float[]> vectors = embedder.embed(List.of("my dog", "my cat", "taxes"), Kind.PASSAGE);
      assertThat(vectors).hasSize(3).allSatisfy(v -> assertThat(v).hasSize(16));
      JsonNode body = ollama.requests("/api/embed").get(0).body();
      assertThat(body.path("model").asString()).isEqualTo("nomic-embed-text");
      assertThat(texts(body))
          .containsExactly(
              "search_document: my dog", "search_document: my cat", "search_document: taxes");
      embedder.embedQuery("which pet?");
      assertThat(texts(ollama.requests("/api/embed").get(1).body()))
          .containsExactly("search_query: which pet?");
    }

    @Test
    void givesUnitLengthVectorsInTheOrderOfTheTexts() {
      OllamaEmbedder embedder = OllamaEmbedder.create(settings);
      List<float[]> vectors = embedder.embed(List.of("alpha beta", "gamma"), Kind.QUERY);
      for (float[] vector : vectors) {
        assertThat(norm(vector)).isCloseTo(1.0, within(1e-5));
      }
      float[] raw = ollama.vectorOf("search_query: gamma");
      double rawNorm = norm(raw);
      assertThat(dot(vectors.get(1), raw) / rawNorm).isCloseTo(1.0, within(1e-5));
    }

    @Test
    void reportsAFailingServerNamingModelAndServer() {
      ollama.failWith(500);
      OllamaEmbedder embedder = OllamaEmbedder.create(settings);
      assertThatThrownBy(() -> embedder.embedQuery("hello"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("ollama:nomic-embed-text")
          .hasMessageContaining(ollama.baseUrl());
      assertThat(ollama.requests("/api/embed")).hasSize(1);
    }

    @Test
    void reportsAnUnreachableServer() {
      String nowhere = ollama.baseUrl();
      ollama.close();
      OllamaEmbedder embedder = OllamaEmbedder.create(settings.withBaseUrl(nowhere));
      assertThatThrownBy(embedder::dimension)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(nowhere);
    }

    private List<String> texts(JsonNode body) {
      return body.path("input").valueStream().map(JsonNode::asString).collect(Collectors.toList());
    }
  }

  @Nested
  @DisplayName("the chat model")
  class TheChatModel {

    @Test
    void isAvailableAndNamedAfterTheOllamaModel() {
      try (OllamaLanguageModel chat = OllamaLanguageModel.create(settings)) {
        assertThat(chat.available()).isTrue();
        assertThat(chat.modelId()).isEqualTo("ollama:llama3.2");
      }
    }

    @Test
    void completesWithOneNonStreamingCallCarryingBothPrompts() {
      try (OllamaLanguageModel chat = OllamaLanguageModel.create(settings)) {
        String answer =
            chat.complete("You summarise.", "Summarise: the dog", Duration.ofSeconds(5));
        assertThat(answer).isEqualTo("echo: Summarise: the dog");
        List<FakeOllamaServer.Request> calls = ollama.requests("/api/chat");
        assertThat(calls).hasSize(1);
        JsonNode body = calls.get(0).body();
        assertThat(body.path("model").asString()).isEqualTo("llama3.2");
        assertThat(body.path("stream").asBoolean(true)).isFalse();
        assertThat(body.path("messages").get(0).path("role").asString()).isEqualTo("system");
        assertThat(body.path("messages").get(0).path("content").asString())
            .isEqualTo("You summarise.");
        assertThat(body.path("messages").get(1).path("role").asString()).isEqualTo("user");
      }
    }

    @Test
    void givesUpAfterTheCallersTimeout() {
      ollama.delayAnswers(Duration.ofSeconds(3));
      try (OllamaLanguageModel chat = OllamaLanguageModel.create(settings)) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> chat.complete("s", "u", Duration.ofMillis(300)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("did not answer within PT0.3S");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
      }
    }

    @Test
    void reportsAFailingServerWithoutRetrying() {
      ollama.failWith(500);
      try (OllamaLanguageModel chat = OllamaLanguageModel.create(settings)) {
        assertThatThrownBy(() -> chat.complete("s", "u", Duration.ofSeconds(5)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("ollama:llama3.2");
        assertThat(ollama.requests("/api/chat")).hasSize(1);
      }
    }

    @Test
    void refusesANonPositiveTimeout() {
      try (OllamaLanguageModel chat = OllamaLanguageModel.create(settings)) {
        assertThatThrownBy(() -> chat.complete("s", "u", Duration.ZERO))
            .isInstanceOf(IllegalArgumentException.class);
      }
    }

    @Test
    void streamsAnswersFromTheNdjsonEndpointToo() {
      OllamaChatModel model = OllamaClients.chatModel(settings);
      List<ChatResponse> chunks =
          model.stream(new Prompt(new UserMessage("tell me about dogs"))).collectList().block();
      String text =
          chunks.stream()
              .map(c -> c.getResult() == null ? "" : c.getResult().getOutput().getText())
              .map(t -> t == null ? "" : t)
              .collect(Collectors.joining());
      assertThat(text).isEqualTo("echo: tell me about dogs");
      assertThat(ollama.requests("/api/chat").get(0).body().path("stream").asBoolean(false))
          .isTrue();
    }
  }
}
