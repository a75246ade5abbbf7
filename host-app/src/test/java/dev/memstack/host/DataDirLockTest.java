package dev.memstack.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;

class DataDirLockTest {

  @TempDir Path dir;

  private GenericApplicationContext context(Path dataDir) {
    GenericApplicationContext context = new GenericApplicationContext();
    context
        .getEnvironment()
        .getPropertySources()
        .addFirst(
            new MapPropertySource(
                "test", java.util.Map.of("memstack.data-dir", dataDir.toString())));
    return context;
  }

  @Test
  void aSecondHostOnTheSameDataDirIsRefusedUntilTheFirstCloses() {
    GenericApplicationContext first = context(dir);
    new DataDirLock().initialize(first);
    first.refresh();

    GenericApplicationContext second = context(dir);
    assertThatThrownBy(() -> new DataDirLock().initialize(second))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(dir.toAbsolutePath().normalize().toString())
        .hasMessageContaining("memstack.data-dir");
    assertThat(dir.resolve(DataDirLock.FILE)).exists();

    first.close();
    GenericApplicationContext third = context(dir);
    new DataDirLock().initialize(third);
    third.refresh();
    third.close();
  }

  @Test
  void anotherDataDirIsNotHeldUp() {
    DataDirLock.Held one = DataDirLock.acquire(dir.resolve("a"));
    DataDirLock.Held two = DataDirLock.acquire(dir.resolve("b"));
    one.release();
    two.release();
    DataDirLock.acquire(dir.resolve("a")).release();
  }
}
