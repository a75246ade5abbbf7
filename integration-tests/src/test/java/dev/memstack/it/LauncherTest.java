package dev.memstack.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;

/**
 * The distribution's launcher ({@code dist/memstack}): it starts the same host as {@code java -jar
 * memstack.jar}, with the distribution's plugins, from a class-data-sharing archive it prepares on
 * its first start and maps on every later one. Run on a copy of the distribution, so that the
 * archive it writes beside itself does not touch the build's {@code dist/}.
 */
class LauncherTest {

  @Test
  void startsTheHostAndThenStartsItFromTheArchiveItPrepared() throws IOException {
    Path dist = DistHost.distribution();
    assertThat(dist.resolve("memstack")).as("the launcher in the distribution").isExecutable();
    Path copy = Files.createTempDirectory("memstack-launcher-");
    try {
      Files.copy(dist.resolve("memstack"), copy.resolve("memstack"));
      Files.copy(dist.resolve("memstack.jar"), copy.resolve("memstack.jar"));
      DistHost.copyPlugins(dist, copy.resolve("plugins"));
      List<String> launch = List.of("bash", copy.resolve("memstack").toString());

      try (DistHost first =
          DistHost.start(
              "memstack-launcher-first",
              launch,
              Map.of("JAVA", DistHost.java()),
              Files.createTempDirectory("memstack-it-"),
              Map.of())) {
        assertThat(providers(first)).contains("builtin", "vector");
        assertThat(first.logText()).contains("preparing a class-data-sharing archive");
      }
      assertThat(copy.resolve(".cds/app.jsa")).isRegularFile();

      // -Xshare:on: the JVM refuses to start unless it maps the archive
      try (DistHost second =
          DistHost.start(
              "memstack-launcher-second",
              launch,
              Map.of("JAVA", DistHost.java(), "JAVA_OPTS", "-Xshare:on"),
              Files.createTempDirectory("memstack-it-"),
              Map.of())) {
        assertThat(providers(second)).contains("builtin", "vector");
        assertThat(second.logText()).doesNotContain("preparing a class-data-sharing archive");
      }
    } finally {
      FileSystemUtils.deleteRecursively(copy);
    }
  }

  /** The providers that are up. */
  private static List<String> providers(DistHost host) {
    List<String> ids = new ArrayList<>();
    for (JsonNode provider : host.adminGet("/api/v1/providers").path("providers")) {
      if ("UP".equals(provider.path("health").path("status").asString())) {
        ids.add(provider.path("id").asString());
      }
    }
    return ids;
  }
}
