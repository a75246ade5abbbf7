package dev.memstack.host.plugin;

import dev.memstack.host.coordination.InProcessCoordination;
import dev.memstack.host.coordination.ProviderCoordination;
import dev.memstack.host.coordination.SystemPromptInvalidation;
import dev.memstack.host.stack.SystemPromptCache;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import java.time.Clock;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;

/**
 * What the host hands every provider instance beside its own settings: the host clock, the model
 * ports (resolving their beans on first use, {@link LazyModelPorts}), where a changed system prompt
 * is reported and how instances coordinate. The registry passes it to {@link ProviderInstances},
 * which puts it into each instance's {@link HostProviderContext} (where each port is checked for
 * {@code null}).
 */
public record ProviderPorts(
    Clock clock,
    Embedder embedder,
    LanguageModel languageModel,
    SystemPromptInvalidation promptInvalidation,
    ProviderCoordination coordination) {

  /** Lazy ports over the model beans, with these prompt invalidation and coordination. */
  public static ProviderPorts of(
      Clock clock,
      ObjectProvider<Embedder> embedders,
      ObjectProvider<LanguageModel> languageModels,
      SystemPromptInvalidation promptInvalidation,
      ProviderCoordination coordination) {
    return new ProviderPorts(
        Objects.requireNonNull(clock, "clock"),
        LazyModelPorts.embedder(embedders),
        LazyModelPorts.languageModel(languageModels),
        Objects.requireNonNull(promptInvalidation, "promptInvalidation"),
        Objects.requireNonNull(coordination, "coordination"));
  }

  /** One host alone: prompt changes invalidate {@code cache} directly, coordination in process. */
  public static ProviderPorts local(
      Clock clock,
      ObjectProvider<Embedder> embedders,
      ObjectProvider<LanguageModel> languageModels,
      SystemPromptCache cache) {
    return of(
        clock,
        embedders,
        languageModels,
        SystemPromptInvalidation.local(cache::invalidate),
        new InProcessCoordination(clock));
  }
}
