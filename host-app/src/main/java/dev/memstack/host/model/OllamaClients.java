package dev.memstack.host.model;

import java.net.http.HttpClient;
import java.time.Duration;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.OllamaEmbeddingModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.ai.ollama.api.OllamaChatOptions;
import org.springframework.ai.ollama.api.OllamaEmbeddingOptions;
import org.springframework.ai.ollama.management.ModelManagementOptions;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Builds Spring AI's Ollama models from {@code memstack.models.ollama.*} by hand (no Spring AI
 * auto-configuration): JDK HTTP clients with the configured timeouts, models never pulled, chat
 * calls not retried (callers have their own deadlines and fallbacks).
 */
final class OllamaClients {

  private OllamaClients() {}

  static OllamaEmbeddingModel embeddingModel(ModelProperties.Ollama settings) {
    return OllamaEmbeddingModel.builder()
        .ollamaApi(api(settings, settings.embeddingTimeout()))
        .options(OllamaEmbeddingOptions.builder().model(settings.embeddingModel()).build())
        .modelManagementOptions(ModelManagementOptions.defaults())
        .build();
  }

  static OllamaChatModel chatModel(ModelProperties.Ollama settings) {
    return OllamaChatModel.builder()
        .ollamaApi(api(settings, settings.chatTimeout()))
        .options(OllamaChatOptions.builder().model(settings.chatModel()).build())
        .modelManagementOptions(ModelManagementOptions.defaults())
        .retryTemplate(new RetryTemplate(RetryPolicy.withMaxRetries(0)))
        .build();
  }

  static OllamaApi api(ModelProperties.Ollama settings, Duration readTimeout) {
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(settings.connectTimeout())
            .build();
    JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory(http);
    requests.setReadTimeout(readTimeout);
    JdkClientHttpConnector streams = new JdkClientHttpConnector(http);
    streams.setReadTimeout(readTimeout);
    return OllamaApi.builder()
        .baseUrl(settings.baseUrl())
        .restClientBuilder(RestClient.builder().requestFactory(requests))
        .webClientBuilder(WebClient.builder().clientConnector(streams))
        .build();
  }
}
