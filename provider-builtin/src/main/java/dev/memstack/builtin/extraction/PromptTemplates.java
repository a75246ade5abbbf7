package dev.memstack.builtin.extraction;

import dev.memstack.support.PluginResources;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The prompt templates of the memory jobs: {@code memory/summarize-system}, {@code
 * memory/summarize-user}, {@code memory/emergence-system}, {@code memory/emergence-user}, {@code
 * memory/consolidation-system}, {@code memory/consolidation-user}, {@code memory/soul-system} and
 * {@code memory/soul-user}, bundled under {@code dev/memstack/builtin/prompts/}, each replaceable
 * by {@code <templates-dir>/memory/<name>.md}. Placeholders are {@code {{name}}}; an unknown one is
 * left as it is. Loaded once at start; immutable.
 */
public final class PromptTemplates {

  /** The memory jobs that ask the model, each with a system and a user template. */
  public enum Job {
    SUMMARIZE,
    EMERGENCE,
    CONSOLIDATION,
    SOUL;

    /** The system template's name, {@code memory/<job>-system}. */
    public String system() {
      return name("system");
    }

    /** The user template's name, {@code memory/<job>-user}. */
    public String user() {
      return name("user");
    }

    private String name(String part) {
      return "memory/" + name().toLowerCase(Locale.ROOT) + "-" + part;
    }
  }

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z_]+)}}");

  private final Map<String, String> templates;

  private PromptTemplates(Map<String, String> templates) {
    this.templates = templates;
  }

  /** The bundled templates, each overridden by a file in {@code overrides} when there is one. */
  public static PromptTemplates load(Optional<Path> overrides) {
    Map<String, String> templates = new LinkedHashMap<>();
    for (Job job : Job.values()) {
      for (String name : List.of(job.system(), job.user())) {
        templates.put(name, load(name, overrides));
      }
    }
    return new PromptTemplates(templates);
  }

  /** The template {@code name} with its placeholders filled from {@code values}. */
  public String render(String name, Map<String, String> values) {
    String template = templates.get(name);
    if (template == null) {
      throw new IllegalArgumentException("no prompt template " + name);
    }
    Matcher matcher = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String value = values.get(matcher.group(1));
      matcher.appendReplacement(
          out, Matcher.quoteReplacement(value == null ? matcher.group() : value));
    }
    matcher.appendTail(out);
    return out.toString();
  }

  private static String load(String name, Optional<Path> overrides) {
    try {
      if (overrides.isPresent()) {
        for (String candidate : List.of(name + ".md", name + ".txt", name)) {
          Path file = overrides.get().resolve(candidate);
          if (Files.isRegularFile(file)) {
            return Files.readString(file, StandardCharsets.UTF_8);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the prompt template " + name, e);
    }
    return PluginResources.text(
        PromptTemplates.class,
        "/dev/memstack/builtin/prompts/" + name + ".md",
        "prompt template " + name);
  }
}
