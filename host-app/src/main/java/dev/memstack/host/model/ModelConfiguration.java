package dev.memstack.host.model;

import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The host's model beans: exactly one {@link Embedder} and one {@link LanguageModel}, chosen by
 * {@code memstack.models.embedding} and {@code memstack.models.chat}; Ollama's server and models
 * from {@code memstack.models.ollama.*} or Spring AI's {@code spring.ai.ollama.*} ({@link
 * OllamaSettings}). Nothing connects or loads at start: the in-process model loads in the
 * background once the host is ready ({@code memstack.models.onnx.warm-up}) or on first use, Ollama
 * is first called on first use.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ModelProperties.class)
public class ModelConfiguration {

  @Bean
  public Embedder embedder(ModelProperties properties, Environment environment) {
    BundledModel bundled = properties.embedding().bundledModel();
    if (bundled != null) {
      return new OnnxEmbedder(bundled, properties.onnx());
    }
    return OllamaEmbedder.create(ollama(properties, environment));
  }

  @Bean
  public LanguageModel languageModel(ModelProperties properties, Environment environment) {
    return switch (properties.chat()) {
      case NONE -> LanguageModel.none();
      case OLLAMA -> OllamaLanguageModel.create(ollama(properties, environment));
    };
  }

  /** The Ollama settings, with Spring AI's {@code spring.ai.ollama.*} keys where ours are unset. */
  static ModelProperties.Ollama ollama(ModelProperties properties, Environment environment) {
    return OllamaSettings.resolve(properties.ollama(), Binder.get(environment));
  }

  @Bean
  ModelsHealthIndicator modelsHealthIndicator(EmbedderWarmUp warmUp, LanguageModel languageModel) {
    return new ModelsHealthIndicator(warmUp, languageModel);
  }

  @Bean
  EmbedderWarmUp embedderWarmUp(Embedder embedder, ModelProperties properties) {
    return new EmbedderWarmUp(embedder, properties.onnx().warmUp());
  }
}
