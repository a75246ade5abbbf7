package dev.memstack.host.plugin;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the plugin folder: {@code memstack.plugins.dir} when set; otherwise {@code ./plugins}, or,
 * when that folder does not exist and the host runs from a jar, the {@code plugins} folder beside
 * the jar. So both {@code cd dist && java -jar memstack.jar} and {@code java -jar
 * dist/memstack.jar} find the plugins of the distribution.
 */
final class PluginFolder {

  private static final Logger log = LoggerFactory.getLogger(PluginFolder.class);

  static final Path DEFAULT = Path.of("plugins");

  private PluginFolder() {}

  /**
   * @param configured the value of {@code memstack.plugins.dir}, or {@code null} when unset
   * @param hostJar the jar the host runs from, empty when it runs from class folders
   */
  static Path resolve(Path configured, Optional<File> hostJar) {
    Found found = find(configured, hostJar);
    log.info("Plugin folder {} ({})", found.shown(), found.why());
    return found.dir();
  }

  /** The same folder as {@link #resolve}, without logging it. */
  static Path locate(Path configured, Optional<File> hostJar) {
    return find(configured, hostJar).dir();
  }

  /** The folder, the path as the log names it, and why it was chosen. */
  private record Found(Path dir, Path shown, String why) {}

  private static Found find(Path configured, Optional<File> hostJar) {
    if (configured != null) {
      Path dir = configured.toAbsolutePath().normalize();
      return new Found(dir, dir, "memstack.plugins.dir");
    }
    Path local = DEFAULT.toAbsolutePath().normalize();
    if (!Files.isDirectory(local) && hostJar.isPresent()) {
      Path besideJar = hostJar.get().toPath().toAbsolutePath().getParent().resolve(DEFAULT);
      if (Files.isDirectory(besideJar)) {
        return new Found(
            besideJar.normalize(), besideJar, "beside the host jar; ./plugins does not exist");
      }
    }
    return new Found(local, local, "default ./plugins");
  }

  /** The jar the given class was loaded from, if it was loaded from a jar file. */
  static Optional<File> jarOf(Class<?> type) {
    File source = new org.springframework.boot.system.ApplicationHome(type).getSource();
    if (source != null && source.isFile() && source.getName().endsWith(".jar")) {
      return Optional.of(source);
    }
    return Optional.empty();
  }
}
