package dev.memstack.host.plugin;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The real plugin zips of the three provider modules, as the build resolved them: surefire passes
 * their paths as {@code memstack.test.zip.<name>} (from the host's {@code zip} dependencies); run
 * from an IDE, the provider modules' {@code target} folders and the local Maven repository are
 * tried.
 */
public final class PluginZips {

  public static final List<String> NAMES = List.of("builtin", "vector", "mem0");

  private PluginZips() {}

  /** The zip of provider module {@code provider-<name>}. */
  public static Path zip(String name) {
    String property = System.getProperty("memstack.test.zip." + name);
    if (property != null && !property.isBlank() && !property.startsWith("${")) {
      return Path.of(property);
    }
    String file = "provider-" + name + "-0.1.0.zip";
    return Stream.of(
            Path.of("..", "provider-" + name, "target", file),
            Path.of(
                System.getProperty("user.home"),
                ".m2/repository/dev/memstack/provider-" + name + "/0.1.0/" + file))
        .filter(Files::isRegularFile)
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "plugin zip of provider-"
                        + name
                        + " not found; run ./mvnw -pl provider-"
                        + name
                        + " -DskipTests install"));
  }

  /** Copies the three zips into {@code dir} (created) and returns it. */
  public static Path copyAllTo(Path dir) {
    return copyTo(dir, NAMES.toArray(String[]::new));
  }

  /** Copies the zips of {@code names} into {@code dir} (created) and returns it. */
  public static Path copyTo(Path dir, String... names) {
    try {
      Files.createDirectories(dir);
      for (String name : names) {
        Path zip = zip(name);
        Files.copy(zip, dir.resolve(zip.getFileName()));
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether all three zips can be found. */
  public static Optional<String> missing() {
    for (String name : NAMES) {
      try {
        zip(name);
      } catch (IllegalStateException e) {
        return Optional.of(e.getMessage());
      }
    }
    return Optional.empty();
  }
}
