package dev.memstack.builtin.memory;

import dev.memstack.support.PluginResources;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The starting content of the core files: bundled in the plugin under {@code
 * dev/memstack/builtin/templates/}, each replaceable by a file of the same name in the configured
 * {@code templates-dir}.
 */
final class Templates {

  private static final String RESOURCE_DIR = "/dev/memstack/builtin/templates/";

  private final Map<String, String> contents;

  private Templates(Map<String, String> contents) {
    this.contents = contents;
  }

  static Templates load(Optional<Path> overrides) {
    Map<String, String> contents = new LinkedHashMap<>();
    for (String name : WorkspaceRules.CORE_FILES) {
      contents.put(name, load(name, overrides));
    }
    return new Templates(contents);
  }

  String get(String name) {
    String content = contents.get(name);
    if (content == null) {
      throw new IllegalArgumentException("no template for " + name);
    }
    return content;
  }

  private static String load(String name, Optional<Path> overrides) {
    try {
      if (overrides.isPresent()) {
        Path file = overrides.get().resolve(name);
        if (Files.isRegularFile(file)) {
          return Files.readString(file, StandardCharsets.UTF_8);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the template " + name, e);
    }
    return PluginResources.text(Templates.class, RESOURCE_DIR + name, "template " + name);
  }
}
