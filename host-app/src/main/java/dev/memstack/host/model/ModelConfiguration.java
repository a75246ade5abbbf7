package dev.memstack.host.model;

import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The host's model beans: exactly one {@link Embedder} and one {@link LanguageModel}, chosen by
 * {@code memstack.models.embedding} and {@code memstack.models.chat}. Nothing connects or loads at
 * start: the in-process model loads in the background once the host is ready ({@code
 * memstack.models.onnx.warm-up}) or on first use, Ollama is first called on first use.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ModelProperties.class)
public class ModelConfiguration {

  @Bean
  public Embedder embedder(ModelProperties properties) {
    BundledModel bundled = properties.embedding().bundledModel();
    if (bundled != null) {
      return new OnnxEmbedder(bundled, properties.onnx());
    }
    return OllamaEmbedder.create(properties.ollama());
  }

  @Bean
  public LanguageModel languageModel(ModelProperties properties) {
    return switch (properties.chat()) {
      case NONE -> LanguageModel.none();
      case OLLAMA -> OllamaLanguageModel.create(properties.ollama());
    };
  }

  @Bean
  ModelsHealthIndicator modelsHealthIndicator(
      Embedder embedder, LanguageModel languageModel, EmbedderWarmUp warmUp) {
    return new ModelsHealthIndicator(embedder, languageModel, warmUp);
  }

  @Bean
  EmbedderWarmUp embedderWarmUp(Embedder embedder, ModelProperties properties) {
    return new EmbedderWarmUp(embedder, properties.onnx().warmUp());
  }
}
