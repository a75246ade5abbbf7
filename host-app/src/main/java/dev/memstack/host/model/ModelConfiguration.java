package dev.memstack.host.model;

import dev.memstack.host.plugin.ProviderRegistry;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The host's model beans: exactly one {@link Embedder} and one {@link LanguageModel}, chosen by
 * {@code memstack.models.embedding} and {@code memstack.models.chat}; Ollama's server and models
 * from {@code memstack.models.ollama.*} or Spring AI's {@code spring.ai.ollama.*} ({@link
 * OllamaSettings}). The in-process model loads in the background during the start, once the
 * providers have started ({@code memstack.models.onnx.warm-up}), or on first use; Ollama is first
 * called on first use.
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

  /**
   * The model's warm-up, started as soon as it is made, and made after the provider registry (which
   * starts the providers) where there is one: on two cores a load beside the providers' start slows
   * it by more than it saves, while beside the rest of the start (MCP server, actuator endpoints,
   * web server) the model is loaded about when the host is ready instead of ~0.7 s after
   * (bench/RESULTS.md, "Start, continued: C2 later, and the model beside the end of the start").
   */
  @Bean
  EmbedderWarmUp embedderWarmUp(
      Embedder embedder,
      ModelProperties properties,
      ObjectProvider<ProviderRegistry> providersFirst) {
    providersFirst.ifAvailable(registry -> {});
    EmbedderWarmUp warmUp = new EmbedderWarmUp(embedder, properties.onnx().warmUp());
    warmUp.start();
    return warmUp;
  }
}
