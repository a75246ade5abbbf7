package dev.memstack.host.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginFolderTest {

  @TempDir Path temp;

  @Test
  void aConfiguredFolderIsUsedAsGiven() {
    Path configured = temp.resolve("elsewhere");

    assertThat(PluginFolder.resolve(configured, Optional.empty())).isEqualTo(configured);
  }

  @Test
  void withoutConfigurationThePluginsFolderBesideTheJarIsUsedWhenThereIsNoLocalOne()
      throws Exception {
    Path dist = Files.createDirectories(temp.resolve("dist"));
    Files.createDirectories(dist.resolve("plugins"));
    File jar = Files.createFile(dist.resolve("memstack.jar")).toFile();
    // the tests run in host-app/, which has no plugins folder
    assertThat(Path.of("plugins")).doesNotExist();

    assertThat(PluginFolder.resolve(null, Optional.of(jar))).isEqualTo(dist.resolve("plugins"));
  }

  @Test
  void withoutConfigurationOrJarTheDefaultIsPluginsInTheWorkingFolder() {
    assertThat(PluginFolder.resolve(null, Optional.empty()))
        .isEqualTo(Path.of("plugins").toAbsolutePath().normalize());
  }

  @Test
  void classesLoadedFromFoldersHaveNoJar() {
    assertThat(PluginFolder.jarOf(PluginFolderTest.class)).isEmpty();
  }
}
