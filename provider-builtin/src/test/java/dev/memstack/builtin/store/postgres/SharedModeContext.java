package dev.memstack.builtin.store.postgres;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.SharedDatabase;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/** A provider context of a host in shared mode: another context with a shared database. */
public record SharedModeContext(ProviderContext delegate, SharedDatabase database)
    implements ProviderContext {

  @Override
  public String instanceId() {
    return delegate.instanceId();
  }

  @Override
  public ProviderConfig config() {
    return delegate.config();
  }

  @Override
  public Path dataDir() {
    return delegate.dataDir();
  }

  @Override
  public Clock clock() {
    return delegate.clock();
  }

  @Override
  public Embedder embedder() {
    return delegate.embedder();
  }

  @Override
  public LanguageModel languageModel() {
    return delegate.languageModel();
  }

  @Override
  public void systemPromptChanged(AgentId agent) {
    delegate.systemPromptChanged(agent);
  }

  @Override
  public Optional<SharedDatabase> sharedDatabase() {
    return Optional.of(database);
  }
}
