package dev.memstack.builtin.store.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.analysis.cjk.CJKBigramFilter;
import org.apache.lucene.index.IndexWriter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Two indexes on one directory, as when a plugin reload creates the new provider instance while the
 * old one still holds the index: the second waits for the first to let go, and never takes the
 * first's lock for a broken index that it could delete and rebuild.
 */
@DisplayName("The keyword index's write lock")
class LuceneKeywordIndexLockTest {

  private static final Bucket TEAM = Bucket.team(AgentId.of("a1"));

  @TempDir Path dir;

  @Test
  @DisplayName("makes an index from another class loader wait for the holder and keep its data")
  void anotherClassLoaderWaitsForTheHolder() throws Exception {
    LuceneKeywordIndex holder = new LuceneKeywordIndex(dir, 80, Duration.ZERO);
    write(holder, "old.md", "the osprey dives");
    holder.commit();
    // a second copy of the classes, as a reloaded plugin has: the JDK sees one JVM-wide file lock
    try (URLClassLoader reloaded = isolatedLoader()) {
      Class<?> type = reloaded.loadClass(LuceneKeywordIndex.class.getName());
      assertThat(type).isNotSameAs(LuceneKeywordIndex.class);
      Constructor<?> open = type.getConstructor(Path.class, int.class, Duration.class);
      AtomicReference<Object> opened = new AtomicReference<>();
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread newInstance =
          new Thread(
              () -> {
                try {
                  opened.set(open.newInstance(dir, 80, Duration.ZERO));
                } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                  failed.set(e);
                }
              });
      newInstance.start();
      Thread.sleep(1000);

      assertThat(failed.get()).as("the new instance could not be made").isNull();
      assertThat(newInstance.isAlive()).as("the new instance waits for the lock").isTrue();
      holder.close();
      newInstance.join(15_000);

      assertThat(failed.get()).isNull();
      Object index = opened.get();
      assertThat(index).isNotNull();
      try {
        Map<?, ?> stamps = (Map<?, ?>) type.getMethod("stamps").invoke(index);
        assertThat(stamps).as("the holder's index was kept, not rebuilt").hasSize(1);
      } finally {
        type.getMethod("close").invoke(index);
      }
    }
  }

  @Test
  @DisplayName("refuses an index still locked after the wait, and leaves the holder working")
  void aStillLockedIndexIsRefused() {
    try (LuceneKeywordIndex holder = new LuceneKeywordIndex(dir, 80, Duration.ZERO)) {
      write(holder, "old.md", "the osprey dives");

      UncheckedIOException refused =
          catchThrowableOfType(
              UncheckedIOException.class,
              () -> new LuceneKeywordIndex(dir, 80, Duration.ZERO, Duration.ofMillis(300)));

      assertThat(refused).isNotNull();
      assertThat(refused.getMessage()).contains("locked by another writer");
      write(holder, "new.md", "the falcon stoops");
      holder.commit();
      assertThat(holder.search(List.of(TEAM), "osprey falcon", 5, 50, 1.5, List.of())).hasSize(2);
      assertThat(holder.stamps()).hasSize(2);
    }
  }

  private static void write(LuceneKeywordIndex index, String name, String content) {
    index.replace(
        TEAM,
        WorkspacePath.of(name),
        content,
        new FileStamp(content.length(), 1),
        Instant.EPOCH,
        false);
    index.refresh();
  }

  /** The builtin classes, Lucene, the SPI and SLF4J, loaded again apart from this test's loader. */
  private static URLClassLoader isolatedLoader() {
    URL[] urls =
        List.of(
                LuceneKeywordIndex.class,
                IndexWriter.class,
                CJKBigramFilter.class,
                AgentId.class,
                dev.memstack.support.DaemonThreads.class,
                LoggerFactory.class)
            .stream()
            .map(c -> c.getProtectionDomain().getCodeSource().getLocation())
            .distinct()
            .toArray(URL[]::new);
    return new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
  }
}
