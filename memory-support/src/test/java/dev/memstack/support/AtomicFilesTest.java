package dev.memstack.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {

  @Test
  void replacesTheTargetAndLeavesNoTemporaryFile(@TempDir Path dir) throws Exception {
    Path target = dir.resolve("a.md");
    AtomicFiles.writeString(target, "one");
    AtomicFiles.writeString(target, "two");
    assertThat(Files.readString(target)).isEqualTo("two");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).containsExactly(target);
    }
  }
}
