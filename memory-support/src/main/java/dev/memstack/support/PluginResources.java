package dev.memstack.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Texts a plugin ships inside its own jar (prompts, templates). */
public final class PluginResources {

  private PluginResources() {}

  /**
   * The UTF-8 text of the resource {@code path}, found through {@code anchor}'s class loader (so a
   * plugin reads its own jar).
   *
   * @param what what the resource is, for the messages, e.g. {@code "prompt template facts"}
   * @throws IllegalStateException {@code the plugin is missing its <what>} when there is none
   * @throws UncheckedIOException {@code cannot read the <what>}
   */
  public static String text(Class<?> anchor, String path, String what) {
    try (InputStream in = anchor.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("the plugin is missing its " + what);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the " + what, e);
    }
  }
}
