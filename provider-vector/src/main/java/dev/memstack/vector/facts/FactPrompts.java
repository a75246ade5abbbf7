package dev.memstack.vector.facts;

import dev.memstack.support.PluginResources;
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
    return PluginResources.text(FactPrompts.class, name, "prompt resource " + name);
  }
}
