package dev.memstack.host.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.security.TestTokens;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The contradiction inbox through the host, on the real vector plugin with the check on: a
 * conflicting statement waits in its owner's inbox, a decision is recorded with the token's name,
 * another owner sees and decides nothing, bad bodies name their field.
 */
@HostTest
class ContradictionInboxApiTest {

  private static final String BOB_MEMBER = "test-bob-member-token-0123456789abcdef";

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.allPlugins("memory-inbox")
          .with("memstack.providers.vector.config.contradiction-check-enabled", "true")
          .addToken(TestTokens.VIEWER, "viewer", null)
          .addToken(BOB_MEMBER, "member", "user:bob");

  private static final String INBOX = "/api/v1/agents/a1/memory/inbox";
  private static final String ITEMS = "/api/v1/agents/a1/memory/items";

  @Autowired HostClient client;

  private JsonNode remember(String owner, String text) {
    Answer stored =
        client.post(
            "/api/v1/agents/a1/tools/vector/remember",
            "{\"ownerKey\":\"" + owner + "\",\"text\":\"" + text + "\"}");
    assertThat(stored.status()).as(stored.body()).isEqualTo(200);
    return stored.json();
  }

  @Test
  void aConflictingStatementWaitsInItsOwnersInboxUntilDecided() {
    String old = remember("user:alice", "My locker code is 1111").get("id").asString();
    JsonNode pending = remember("user:alice", "My locker code is 2222");
    assertThat(pending.get("pending").asBoolean()).isTrue();
    String incoming = pending.get("id").asString();

    Answer listed = client.get(INBOX + "?ownerKey=user:alice");
    assertThat(listed.status()).as(listed.body()).isEqualTo(200);
    assertThat(listed.json().get("total").asLong()).isEqualTo(1);
    JsonNode item = listed.json().get("items").get(0);
    String id = item.get("id").asString();
    assertThat(item.get("existing").get("id").asString()).isEqualTo(old);
    assertThat(item.get("incoming").get("status").asString()).isEqualTo("pending");

    // bob neither sees alice's inbox nor decides for her
    HostClient bob = client.as(BOB_MEMBER);
    assertThat(bob.get(INBOX + "?ownerKey=user:bob").json().get("total").asLong()).isZero();
    assertThat(
            bob.post(INBOX + "/" + id + "?ownerKey=user:bob", "{\"decision\":\"keep-new\"}")
                .status())
        .isEqualTo(404);
    assertThat(bob.get(INBOX + "?ownerKey=user:alice").status()).isEqualTo(403);
    // a viewer reads but decides nothing
    HostClient viewer = client.as(TestTokens.VIEWER);
    assertThat(viewer.get(INBOX + "?ownerKey=user:alice").status()).isEqualTo(200);
    assertThat(
            viewer
                .post(INBOX + "/" + id + "?ownerKey=user:alice", "{\"decision\":\"keep-new\"}")
                .status())
        .isEqualTo(403);

    Answer decided =
        client.post(INBOX + "/" + id + "?ownerKey=user:alice", "{\"decision\":\"keep-new\"}");
    assertThat(decided.status()).as(decided.body()).isEqualTo(200);
    assertThat(decided.json().get("incoming").get("status").asString()).isEqualTo("active");
    assertThat(decided.json().get("existing").get("status").asString()).isEqualTo("superseded");
    assertThat(client.get(INBOX + "?ownerKey=user:alice").json().get("total").asLong()).isZero();
    assertThat(
            client
                .post(INBOX + "/" + id + "?ownerKey=user:alice", "{\"decision\":\"keep-old\"}")
                .status())
        .isEqualTo(404);

    JsonNode events =
        client
            .get(ITEMS + "/" + incoming + "/history?provider=vector&ownerKey=user:alice")
            .json()
            .get("events");
    JsonNode decision = events.get(events.size() - 1);
    assertThat(decision.get("event").asString()).isEqualTo("decision");
    assertThat(decision.get("decision").asString()).isEqualTo("keep-new");
    assertThat(decision.get("other").asString()).isEqualTo(old);
    assertThat(decision.get("actor").asString()).isEqualTo("memstack.security.tokens[0]");
  }

  @Test
  void badBodiesAreA400NamingTheField() {
    Answer missing = client.post(INBOX + "/c-1?ownerKey=user:alice", "{}");
    assertThat(missing.status()).as(missing.body()).isEqualTo(400);
    assertThat(missing.json().get("field").asString()).isEqualTo("decision");

    Answer wrong = client.post(INBOX + "/c-1?ownerKey=user:alice", "{\"decision\":\"keep-all\"}");
    assertThat(wrong.status()).as(wrong.body()).isEqualTo(400);
    assertThat(wrong.json().get("field").asString()).isEqualTo("decision");

    Answer extra =
        client.post(INBOX + "/c-1?ownerKey=user:alice", "{\"decision\":\"keep-new\",\"z\":1}");
    assertThat(extra.status()).as(extra.body()).isEqualTo(400);
    assertThat(extra.json().get("field").asString()).isEqualTo("z");

    Answer unknown = client.post(INBOX + "/c-1?ownerKey=user:alice", "{\"decision\":\"keep-new\"}");
    assertThat(unknown.status()).as(unknown.body()).isEqualTo(404);

    Answer limit = client.get(INBOX + "?ownerKey=user:alice&limit=ten");
    assertThat(limit.status()).as(limit.body()).isEqualTo(400);
    assertThat(limit.json().get("field").asString()).isEqualTo("limit");
  }
}
