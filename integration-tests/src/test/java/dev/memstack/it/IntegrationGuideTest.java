package dev.memstack.it;

import dev.memstack.client.DocSnippets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class IntegrationGuideTest {

  static final Path SOURCE =
      Path.of("src/test/java/dev/memstack/it/AdvisorRemembersAcrossConversationsTest.java");

  @Test
  void theSpringBootExampleIsTheOneTheEndToEndTestRuns() {
    DocSnippets.assertQuoted("docs/integrating.md", SOURCE, "app");
    DocSnippets.assertQuoted("docs/integrating.md", SOURCE, "ask");
  }

  @Test
  void theChatMemoryExampleIsTheOneTheEndToEndTestRuns() {
    DocSnippets.assertQuoted(
        "docs/integrating.md",
        Path.of("src/test/java/dev/memstack/it/ChatMemoryOnTheHostTest.java"),
        "app");
  }
}
