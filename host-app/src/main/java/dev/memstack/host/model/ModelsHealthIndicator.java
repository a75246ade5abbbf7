package dev.memstack.host.model;

import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code models} health component: {@code OUT_OF_SERVICE} while the in-process embedding model
 * is still being warmed up after start, so {@code /actuator/health} turns UP only once the first
 * context call can embed without waiting; {@code DOWN} when the warm-up failed. Never calls Ollama.
 *
 * @param warmUp the warm-up of the embedding model, which it reports on
 * @param languageModel the chat model, named in the details
 */
record ModelsHealthIndicator(EmbedderWarmUp warmUp, LanguageModel languageModel)
    implements HealthIndicator {

  @Override
  public Health health() {
    Embedder embedder = warmUp.embedder();
    Health.Builder health;
    if (warmUp.failure() != null) {
      health = Health.down().withDetail("error", warmUp.failure());
    } else if (embedder instanceof OnnxEmbedder onnx && warmUp.enabled() && !onnx.loaded()) {
      health = Health.outOfService().withDetail("embedding", "loading " + onnx.modelId());
    } else {
      health = Health.up();
    }
    return health
        .withDetail("embeddingModel", embedder.modelId())
        .withDetail("chatModel", languageModel.modelId())
        .build();
  }
}
