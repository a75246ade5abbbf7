package dev.memstack.vector.facts;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** The prompt templates, read from this package's resources; {@code {{name}}} is filled in. */
record FactPrompts(
    String extractSystem, String extractUser, String decideSystem, String decideUser) {

  /** The bundled templates. */
  static FactPrompts bundled() {
    return new FactPrompts(
        resource("extract-system.txt"),
        resource("extract-user.txt"),
        resource("decide-system.txt"),
        resource("decide-user.txt"));
  }

  static String fill(String template, Map<String, String> values) {
    String out = template;
    for (Map.Entry<String, String> e : values.entrySet()) {
      out = out.replace("{{" + e.getKey() + "}}", e.getValue());
    }
    return out;
  }

  private static String resource(String name) {
    try (InputStream in = FactPrompts.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("prompt resource missing: " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read prompt resource " + name, e);
    }
  }
}
