package dev.memstack.builtin.store;

import dev.memstack.builtin.store.files.FileStoreAdapters;
import dev.memstack.builtin.store.postgres.PostgresStoreAdapters;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.Embedder;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The one place that picks the adapters: {@link StoreSettings} (the provider's {@code store} keys)
 * chooses files and Lucene ({@link FileStoreAdapters}) or PostgreSQL ({@link
 * PostgresStoreAdapters}); everything else uses the ports of this package.
 */
public final class Stores {

  /**
   * What the adapters need besides the store settings.
   *
   * @param dataDir the provider's data directory (files, the Lucene index, conversation files)
   * @param clock stamps update times
   * @param snippetChars length of keyword hits' snippets
   * @param indexCommitInterval least time between two commits of the Lucene index
   * @param denseEmbedder the model of the Lucene index's dense view, or {@code null} for none (the
   *     only value that may be {@code null})
   * @param defaults the metadata of a file that has none recorded (one added by hand)
   * @param weighted which files' keyword hits count more (core files)
   */
  public record Needs(
      Path dataDir,
      Clock clock,
      int snippetChars,
      Duration indexCommitInterval,
      Embedder denseEmbedder,
      Function<WorkspacePath, FileMeta> defaults,
      Predicate<WorkspacePath> weighted) {

    public Needs {
      if (Stream.of(dataDir, clock, indexCommitInterval, defaults, weighted)
          .anyMatch(Objects::isNull)) {
        throw new NullPointerException("only denseEmbedder may be null: " + this);
      }
    }
  }

  private Stores() {}

  /**
   * Opens the adapters {@code settings} chooses.
   *
   * @throws java.io.UncheckedIOException when the data directory or the index cannot be used
   * @throws IllegalStateException when the database cannot be reached or set up
   */
  public static StoreAdapters open(StoreSettings settings, Needs needs) {
    return switch (settings.kind()) {
      case FILES -> new FileStoreAdapters(needs);
      case POSTGRES -> PostgresStoreAdapters.open(settings.postgres().orElseThrow(), needs);
    };
  }
}
