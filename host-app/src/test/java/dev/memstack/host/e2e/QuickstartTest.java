package dev.memstack.host.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.TestHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/**
 * Issue 16: the TypeScript quickstart (a client generated from {@code docs/openapi.json} with
 * openapi-typescript, called through openapi-fetch) and the Python one (standard library) run
 * against a real host, base URL and token in {@code MEMSTACK_URL} and {@code MEMSTACK_TOKEN}. Each
 * runs its context → model → turn loop twice for a new owner: the second run recalls what the first
 * handed in.
 */
@DisplayName("The quickstarts")
class QuickstartTest {

  private static final String FIRST = "I adopted a retired greyhound named Biscuit last spring";
  private static final String SECOND = "what kind of dog do I have?";

  /** The token of an agent platform: a member for the owners {@code api:*}, as in production. */
  private static final String PLATFORM = "quickstart-platform-token-0123456789";

  @RegisterExtension
  static final TestHost HOST = TestHost.create("quickstart").withToken(PLATFORM, "member", "api:*");

  private static final HostClient api = HOST.client();

  @BeforeAll
  static void awaitTheHost() {
    await().atMost(Duration.ofMinutes(2)).until(api::up);
  }

  @Test
  void typeScriptRecallsWhatItsFirstRunStored() {
    Quickstarts.requireTool("node");
    Quickstarts.requireTool("npm");
    Path project = Quickstarts.folder().resolve("typescript");
    Quickstarts.buildTypeScript(project);
    assertRecallsAcrossRuns("api:ts-user", project, "node", "dist/quickstart.js");
  }

  @Test
  void pythonRecallsWhatItsFirstRunStored() {
    Quickstarts.requireTool("python3");
    Path project = Quickstarts.folder().resolve("python");
    assertRecallsAcrossRuns("api:py-user", project, "python3", "quickstart.py");
  }

  @Test
  void areQuotedWholeInTheIntegrationGuide() throws Exception {
    Path folder = Quickstarts.folder();
    String guide = Files.readString(folder.resolveSibling("integrating.md"));
    for (Path source :
        List.of(
            folder.resolve("typescript/src/quickstart.ts"),
            folder.resolve("python/quickstart.py"))) {
      assertThat(guide)
          .as("docs/integrating.md quotes %s as it is", source.getFileName())
          .contains(Files.readString(source).strip());
    }
  }

  private static void assertRecallsAcrossRuns(String owner, Path project, String... program) {
    JsonNode first = runLoop(project, owner, FIRST, program);
    assertThat(first.get("reply").asString()).isEqualTo("You said: " + FIRST);
    assertThat(recalled(first)).as("a new owner has nothing to recall").isEmpty();
    String turnId = first.get("turnId").asString();
    assertThat(turnId).isNotBlank();
    // the turn reaches the vector provider in the background
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> api.outboxOf("vector").get("pending").asInt() == 0);

    JsonNode second = runLoop(project, owner, SECOND, program);
    assertThat(second.get("reply").asString()).isEqualTo("You said: " + SECOND);
    assertThat(recalled(second)).anySatisfy(text -> assertThat(text).contains("Biscuit"));
    assertThat(second.get("turnId").asString()).isNotBlank().isNotEqualTo(turnId);
  }

  private static JsonNode runLoop(Path project, String owner, String message, String... program) {
    String[] command = new String[program.length + 2];
    System.arraycopy(program, 0, command, 0, program.length);
    command[program.length] = owner;
    command[program.length + 1] = message;
    Quickstarts.Run run =
        Quickstarts.run(
                project,
                Map.of(
                    "MEMSTACK_URL", "http://127.0.0.1:" + HOST.port(),
                    "MEMSTACK_TOKEN", PLATFORM,
                    "MEMSTACK_CONVERSATION", "c-" + owner.substring(4)),
                Duration.ofMinutes(1),
                command)
            .requireSuccess();
    return HostClient.JSON.readTree(run.lastLine());
  }

  private static List<String> recalled(JsonNode result) {
    return StreamSupport.stream(result.get("recalled").spliterator(), false)
        .map(JsonNode::asString)
        .toList();
  }
}
