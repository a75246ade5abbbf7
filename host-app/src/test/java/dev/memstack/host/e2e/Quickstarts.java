package dev.memstack.host.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs the quickstarts of {@code docs/quickstart} (and the console's browser tests) as child
 * processes: {@code npm}, {@code node} and {@code python3} from the {@code PATH}. A missing tool
 * skips the test on a developer's machine and fails it on CI ({@code CI=true}), where every
 * quickstart must run.
 */
final class Quickstarts {

  /** What a process printed and how it ended. */
  record Run(List<String> command, int exitCode, String output) {

    Run requireSuccess() {
      if (exitCode != 0) {
        throw new AssertionError(
            String.join(" ", command) + " exited " + exitCode + ":\n" + output);
      }
      return this;
    }

    /** The last line of the output: the quickstarts print their result there. */
    String lastLine() {
      String[] lines = output.strip().split("\n");
      return lines[lines.length - 1];
    }
  }

  private Quickstarts() {}

  /** The folder of the quickstarts (set by the build, see host-app/pom.xml). */
  static Path folder() {
    String path = System.getProperty("memstack.test.quickstart");
    if (path == null) {
      throw new IllegalStateException(
          "system property memstack.test.quickstart is not set; run the test through Maven");
    }
    return Path.of(path);
  }

  /** Skips (or on CI fails) unless {@code tool --version} runs. */
  static void requireTool(String tool) {
    boolean found;
    try {
      found =
          run(Path.of("."), Map.of(), Duration.ofSeconds(30), tool, "--version").exitCode() == 0;
    } catch (UncheckedIOException e) {
      found = false;
    }
    if (!found && "true".equals(System.getenv("CI"))) {
      throw new AssertionError(
          tool
              + " is not installed; CI must run the quickstarts and the console's browser tests"
              + " (install Node 20, npm and python3)");
    }
    Assumptions.assumeTrue(found, tool + " is not installed");
  }

  /**
   * Installs the TypeScript quickstart's packages from its lockfile ({@code npm ci}) when {@code
   * node_modules} is missing, and builds it: generates the client types from {@code
   * docs/openapi.json} and compiles with {@code tsc}, so a change of the document that breaks the
   * quickstart fails here.
   */
  static void buildTypeScript(Path project) {
    if (!Files.isDirectory(project.resolve("node_modules"))) {
      run(project, Map.of(), Duration.ofMinutes(5), "npm", "ci", "--no-audit", "--no-fund")
          .requireSuccess();
    }
    run(project, Map.of(), Duration.ofMinutes(2), "npm", "run", "build").requireSuccess();
  }

  static Run run(Path directory, Map<String, String> env, Duration timeout, String... command) {
    ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
    builder.environment().putAll(env);
    builder.redirectErrorStream(true);
    try {
      Path log = Files.createTempFile("memstack-quickstart", ".log");
      try {
        builder.redirectOutput(log.toFile());
        Process process = builder.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          throw new AssertionError(String.join(" ", command) + " did not end within " + timeout);
        }
        return new Run(
            List.of(command), process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
