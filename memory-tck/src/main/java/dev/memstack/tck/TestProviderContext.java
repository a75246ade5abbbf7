package dev.memstack.tck;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.SharedDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link ProviderContext} for tests, built with {@link #builder()}. Defaults: instance id {@code
 * tck}, empty configuration under {@code memstack.providers.<id>.config}, a fresh temporary data
 * directory, a {@link MutableClock} at the current time, a {@link HashingEmbedder} and {@link
 * LanguageModel#none()}, an in-process {@link Coordination#local coordination} of its own and no
 * shared database. It records every {@link #systemPromptChanged(AgentId)} call so tests can assert
 * that a provider notifies the host. Thread-safe.
 */
public final class TestProviderContext implements ProviderContext {

  private final String instanceId;
  private final ProviderConfig config;
  private final Path dataDir;
  private final Clock clock;
  private final Embedder embedder;
  private final LanguageModel languageModel;
  private final Coordination coordination;
  private final SharedDatabase sharedDatabase;
  private final List<AgentId> systemPromptChanges = Collections.synchronizedList(new ArrayList<>());

  private TestProviderContext(Builder builder) {
    this.instanceId = builder.instanceId;
    this.config =
        builder.config != null
            ? builder.config
            : ProviderConfig.of(
                "memstack.providers." + builder.instanceId + ".config", builder.configValues);
    this.dataDir = builder.dataDir != null ? builder.dataDir : newTempDir();
    this.clock = builder.clock != null ? builder.clock : MutableClock.atSystemTime();
    this.embedder = builder.embedder;
    this.languageModel = builder.languageModel;
    this.coordination =
        builder.coordination != null ? builder.coordination : Coordination.local(clock);
    this.sharedDatabase = builder.sharedDatabase;
    try {
      Files.createDirectories(dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data directory " + dataDir, e);
    }
  }

  /** A builder with the defaults above. */
  public static Builder builder() {
    return new Builder();
  }

  /** A context with every default. */
  public static TestProviderContext create() {
    return builder().build();
  }

  @Override
  public String instanceId() {
    return instanceId;
  }

  @Override
  public ProviderConfig config() {
    return config;
  }

  @Override
  public Path dataDir() {
    return dataDir;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public Embedder embedder() {
    return embedder;
  }

  @Override
  public LanguageModel languageModel() {
    return languageModel;
  }

  @Override
  public void systemPromptChanged(AgentId agent) {
    systemPromptChanges.add(agent);
  }

  @Override
  public Coordination coordination() {
    return coordination;
  }

  @Override
  public Optional<SharedDatabase> sharedDatabase() {
    return Optional.ofNullable(sharedDatabase);
  }

  /**
   * Every {@link #systemPromptChanged(AgentId)} argument so far, in order; a {@code null} element
   * means "every agent".
   */
  public List<AgentId> systemPromptChanges() {
    synchronized (systemPromptChanges) {
      return Collections.unmodifiableList(new ArrayList<>(systemPromptChanges));
    }
  }

  /** Whether the provider said the block of {@code agent} (or of every agent) changed. */
  public boolean systemPromptChangedFor(AgentId agent) {
    synchronized (systemPromptChanges) {
      return systemPromptChanges.stream().anyMatch(a -> a == null || a.equals(agent));
    }
  }

  /** Forgets the recorded {@link #systemPromptChanged(AgentId)} calls. */
  public void clearSystemPromptChanges() {
    systemPromptChanges.clear();
  }

  /** The {@link MutableClock} of this context; fails if it was built with another clock. */
  public MutableClock mutableClock() {
    if (clock instanceof MutableClock mutable) {
      return mutable;
    }
    throw new IllegalStateException(
        "this context was built with " + clock + ", not a MutableClock");
  }

  private static Path newTempDir() {
    try {
      return Files.createTempDirectory("memstack-tck-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary data directory", e);
    }
  }

  @Override
  public String toString() {
    return "TestProviderContext[" + instanceId + ", " + dataDir + "]";
  }

  /** Builds a {@link TestProviderContext}; every setting is optional. */
  public static final class Builder {
    private String instanceId = "tck";
    private Map<String, String> configValues = Map.of();
    private ProviderConfig config;
    private Path dataDir;
    private Clock clock;
    private Embedder embedder = new HashingEmbedder();
    private LanguageModel languageModel = LanguageModel.none();
    private Coordination coordination;
    private SharedDatabase sharedDatabase;

    private Builder() {}

    /**
     * The instance id; also names the configuration prefix {@code memstack.providers.<id>.config}.
     */
    public Builder instanceId(String instanceId) {
      this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
      return this;
    }

    /** The {@code config.*} settings as a map (copied); replaces any earlier configuration. */
    public Builder config(Map<String, String> values) {
      this.configValues = Map.copyOf(Objects.requireNonNull(values, "config"));
      this.config = null;
      return this;
    }

    /** A ready configuration view; replaces any earlier configuration. */
    public Builder config(ProviderConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /** The data directory; created if missing. Default: a fresh temporary directory. */
    public Builder dataDir(Path dataDir) {
      this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public Builder embedder(Embedder embedder) {
      this.embedder = Objects.requireNonNull(embedder, "embedder");
      return this;
    }

    public Builder languageModel(LanguageModel languageModel) {
      this.languageModel = Objects.requireNonNull(languageModel, "languageModel");
      return this;
    }

    /**
     * The coordination the provider gets, e.g. a {@link RecordingCoordination} that looks shared.
     * Default: one {@link Coordination#local} per context, on its clock.
     */
    public Builder coordination(Coordination coordination) {
      this.coordination = Objects.requireNonNull(coordination, "coordination");
      return this;
    }

    /** The shared database, as a host in shared mode hands it; default none. */
    public Builder sharedDatabase(SharedDatabase sharedDatabase) {
      this.sharedDatabase = Objects.requireNonNull(sharedDatabase, "sharedDatabase");
      return this;
    }

    /** A builder with every setting of this one (used to build a second context alike). */
    public Builder copy() {
      Builder copy = new Builder();
      copy.instanceId = instanceId;
      copy.configValues = configValues;
      copy.config = config;
      copy.dataDir = dataDir;
      copy.clock = clock;
      copy.embedder = embedder;
      copy.languageModel = languageModel;
      copy.coordination = coordination;
      copy.sharedDatabase = sharedDatabase;
      return copy;
    }

    public TestProviderContext build() {
      return new TestProviderContext(this);
    }
  }
}
