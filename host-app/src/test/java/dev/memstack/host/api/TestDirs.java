package dev.memstack.host.api;

import java.io.IOException;
import java.nio.file.Path;
import org.springframework.util.FileSystemUtils;

/** Temporary folders of test hosts. */
final class TestDirs {

  private TestDirs() {}

  /**
   * Deletes a test host's folder, best effort: the cached application context of the test class may
   * still be finishing background writes (index commits) into it, so a failed attempt is retried a
   * few times and then given up.
   */
  static void deleteQuietly(Path dir) throws InterruptedException {
    for (int attempt = 0; attempt < 5; attempt++) {
      try {
        FileSystemUtils.deleteRecursively(dir);
        return;
      } catch (IOException e) {
        Thread.sleep(200);
      }
    }
  }
}
