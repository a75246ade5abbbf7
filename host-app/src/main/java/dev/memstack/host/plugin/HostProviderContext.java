package dev.memstack.host.plugin;

import dev.memstack.host.coordination.SystemPromptInvalidation;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.SharedDatabase;
import dev.memstack.support.Require;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/**
 * The {@link ProviderContext} the host hands a provider factory: the instance id, its {@code
 * memstack.providers.<id>.config.*} view, its folder {@code <data-dir>/<id>} (created before the
 * factory runs), the host clock and the host's model ports. The ports resolve the model beans on
 * first use, so a model loads only when a provider needs it. {@link #systemPromptChanged(AgentId)}
 * invalidates the stack's cached system prompt (on every host in shared mode); {@link
 * #coordination()} is the instance's own, in process or on the shared database, and {@link
 * #sharedDatabase()} the shared database in shared mode.
 */
record HostProviderContext(
    String instanceId,
    ProviderConfig config,
    Path dataDir,
    Clock clock,
    Embedder embedder,
    LanguageModel languageModel,
    SystemPromptInvalidation promptInvalidation,
    Coordination coordination,
    Optional<SharedDatabase> sharedDatabase)
    implements ProviderContext {

  HostProviderContext {
    Require.nonNull(
        "instanceId config dataDir clock embedder languageModel "
            + "promptInvalidation coordination sharedDatabase",
        instanceId,
        config,
        dataDir,
        clock,
        embedder,
        languageModel,
        promptInvalidation,
        coordination,
        sharedDatabase);
  }

  @Override
  public void systemPromptChanged(AgentId agent) {
    promptInvalidation.changed(agent);
  }

  @Override
  public String toString() {
    return "ProviderContext[" + instanceId + ", " + dataDir + "]";
  }
}
