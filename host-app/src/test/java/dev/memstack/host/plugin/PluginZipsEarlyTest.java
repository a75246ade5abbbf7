package dev.memstack.host.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.bootstrap.DefaultBootstrapContext;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.mock.env.MockEnvironment;

@DisplayName("Plugin zips expanded early")
class PluginZipsEarlyTest {

  @Test
  @DisplayName("are expanded into their folders before the plugin manager may look")
  void expandsTheZipsOfTheConfiguredFolder(@TempDir Path plugins) throws Exception {
    Path zip = plugins.resolve("provider-x-1.0.0.zip");
    try (OutputStream file = Files.newOutputStream(zip);
        ZipOutputStream out = new ZipOutputStream(file)) {
      out.putNextEntry(new ZipEntry("plugin.properties"));
      out.write("plugin.id=x\n".getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
      out.putNextEntry(new ZipEntry("lib/readme.txt"));
      out.write("a library".getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    expandEarly(plugins);

    Path folder = plugins.resolve("provider-x-1.0.0");
    assertThat(folder.resolve("plugin.properties")).hasContent("plugin.id=x");
    assertThat(folder.resolve("lib/readme.txt")).hasContent("a library");
  }

  @Test
  @DisplayName("a missing folder is no error, and waiting returns at once")
  void missingFolderIsNoError(@TempDir Path root) {
    expandEarly(root.resolve("absent"));

    assertThat(root.resolve("absent")).doesNotExist();
  }

  /** What the host's start does: the listener on a prepared environment, then the wait. */
  private static void expandEarly(Path pluginsDir) {
    MockEnvironment environment =
        new MockEnvironment().withProperty("memstack.plugins.dir", pluginsDir.toString());
    new PluginZipsEarly()
        .onApplicationEvent(
            new ApplicationEnvironmentPreparedEvent(
                new DefaultBootstrapContext(),
                new SpringApplication(),
                new String[0],
                environment));
    PluginZipsEarly.awaitExpansion();
  }
}
