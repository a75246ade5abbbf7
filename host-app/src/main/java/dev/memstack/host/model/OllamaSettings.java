package dev.memstack.host.model;

import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.BindResult;
import org.springframework.boot.context.properties.bind.Binder;

/**
 * The Ollama settings the host uses: {@code memstack.models.ollama.*}, and for each of the server
 * and the two model names that is not set there, Spring AI's own key, so that an application
 * configured for Spring AI's Ollama starter is not silently ignored:
 *
 * <ul>
 *   <li>{@code spring.ai.ollama.base-url} for {@code memstack.models.ollama.base-url};
 *   <li>{@code spring.ai.ollama.chat.options.model} (or its short form {@code
 *       spring.ai.ollama.chat.model}) for {@code memstack.models.ollama.chat-model};
 *   <li>{@code spring.ai.ollama.embedding.options.model} (or {@code
 *       spring.ai.ollama.embedding.model}) for {@code memstack.models.ollama.embedding-model}.
 * </ul>
 *
 * A memstack key that is set wins, and a Spring AI key it overrides is logged. Values are checked
 * as the memstack keys are; an error names the key the value came from.
 */
final class OllamaSettings {

  private static final Logger log = LoggerFactory.getLogger(OllamaSettings.class);

  static final String BASE_URL = "memstack.models.ollama.base-url";
  static final String CHAT_MODEL = "memstack.models.ollama.chat-model";
  static final String EMBEDDING_MODEL = "memstack.models.ollama.embedding-model";

  static final List<String> SPRING_BASE_URL = List.of("spring.ai.ollama.base-url");
  static final List<String> SPRING_CHAT_MODEL =
      List.of("spring.ai.ollama.chat.options.model", "spring.ai.ollama.chat.model");
  static final List<String> SPRING_EMBEDDING_MODEL =
      List.of("spring.ai.ollama.embedding.options.model", "spring.ai.ollama.embedding.model");

  private OllamaSettings() {}

  /** The settings {@code bound} from {@code memstack.models.ollama.*}, completed from Spring AI. */
  static ModelProperties.Ollama resolve(ModelProperties.Ollama bound, Binder binder) {
    String baseUrl =
        pick(binder, BASE_URL, SPRING_BASE_URL)
            .map(v -> ModelProperties.httpUrl(v.value(), null, v.key()))
            .orElse(bound.baseUrl());
    String chatModel =
        pick(binder, CHAT_MODEL, SPRING_CHAT_MODEL)
            .map(v -> ModelProperties.modelName(v.value(), null, v.key()))
            .orElse(bound.chatModel());
    String embeddingModel =
        pick(binder, EMBEDDING_MODEL, SPRING_EMBEDDING_MODEL)
            .map(v -> ModelProperties.modelName(v.value(), null, v.key()))
            .orElse(bound.embeddingModel());
    return bound.withServer(baseUrl, embeddingModel, chatModel);
  }

  /** A value and the key it was read from. */
  private record Keyed(String key, String value) {}

  /**
   * The first Spring AI key that is set, when the memstack key is not; empty when the memstack key
   * (or nothing) is set.
   */
  private static Optional<Keyed> pick(Binder binder, String memstackKey, List<String> springKeys) {
    Optional<Keyed> spring = Optional.empty();
    for (String key : springKeys) {
      BindResult<String> value = binder.bind(key, String.class);
      if (value.isBound()) {
        spring = Optional.of(new Keyed(key, value.get()));
        break;
      }
    }
    if (spring.isEmpty()) {
      return Optional.empty();
    }
    if (binder.bind(memstackKey, String.class).isBound()) {
      log.info(
          "{} is set, so {} ('{}') is not used",
          memstackKey,
          spring.get().key(),
          spring.get().value());
      return Optional.empty();
    }
    log.info("Ollama: {} from {}", memstackKey, spring.get().key());
    return spring;
  }
}
