package dev.memstack.host.proof;

import dev.memstack.host.testing.TestHost;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The adversarial reproductions ({@link AdversarialReplay}) against a single host with its file
 * journal, the three real plugin zips and the kit's embedder.
 */
class AdversarialReplayTest extends AdversarialReplay {

  @RegisterExtension
  static final TestHost HOST =
      TestHost.withTestEmbedder("adversarial-replay")
          .withToken(ALICE, "member", "api:alice")
          .withToken(BOB, "member", "api:bob");

  @Override
  TestHost host() {
    return HOST;
  }
}
