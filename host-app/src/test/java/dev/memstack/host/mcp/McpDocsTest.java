package dev.memstack.host.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Java client of {@code docs/integrating.md} is the one {@link McpServerTest} runs: the first
 * Java block of the guide's MCP Java SDK section equals the test's {@code tag::client} region.
 */
class McpDocsTest {

  @Test
  void theGuidesJavaClientIsTheTestedOne() throws IOException {
    String guide = Files.readString(Path.of("..", "docs", "integrating.md"));
    String section = guide.substring(guide.indexOf("### The MCP Java SDK"));
    int start = section.indexOf("```java\n") + "```java\n".length();
    String quoted = section.substring(start, section.indexOf("```", start));

    String test =
        Files.readString(Path.of("src/test/java/dev/memstack/host/mcp/McpServerTest.java"));
    String region =
        test.substring(
            test.indexOf("// tag::client[]\n") + "// tag::client[]\n".length(),
            test.indexOf("// end::client[]"));

    assertThat(dedent(quoted)).isNotBlank().isEqualTo(dedent(region));
  }

  /** The lines without their common indentation, without blank lines at either end. */
  private static String dedent(String text) {
    List<String> lines = text.lines().toList();
    int common =
        lines.stream()
            .filter(line -> !line.isBlank())
            .mapToInt(line -> line.length() - line.stripLeading().length())
            .min()
            .orElse(0);
    return lines.stream()
        .map(line -> line.isBlank() ? "" : line.substring(common).stripTrailing())
        .collect(Collectors.joining("\n"))
        .strip();
  }
}
