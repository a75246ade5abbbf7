package dev.memstack.host.items;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.security.TestTokens;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.net.http.HttpRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Memories one by one through the host: list, read, edit with optimistic locking, status changes,
 * history with the token's name, forget, under the owner and role rules of the tools. The life of
 * one memory is the vector provider's, named by {@code provider}; without it the routes serve the
 * builtin provider's entries and the vector provider's memories merged (both claim the capability),
 * and bad input is checked there.
 */
@HostTest
class MemoryItemsApiTest {

  private static final String BOB_MEMBER = "test-bob-member-token-0123456789abcdef";

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.allPlugins("memory-items")
          .addToken(TestTokens.VIEWER, "viewer", null)
          .addToken(BOB_MEMBER, "member", "user:bob");

  private static final String ITEMS = "/api/v1/agents/a1/memory/items";

  @Autowired HostClient client;

  private Answer patch(HostClient as, String path, String body) {
    return as.send(
        as.request(path)
            .header("Content-Type", "application/json")
            .method("PATCH", HttpRequest.BodyPublishers.ofString(body)));
  }

  private String remember(String owner, String text) {
    Answer stored =
        client.post(
            "/api/v1/agents/a1/tools/vector/remember",
            "{\"ownerKey\":\"" + owner + "\",\"text\":\"" + text + "\"}");
    assertThat(stored.status()).as(stored.body()).isEqualTo(200);
    return stored.json().get("id").asString();
  }

  @Test
  void listsEditsChangesStatusAndForgetsOneMemoryWithItsHistory() {
    String id = remember("user:alice", "My bike is blue");
    remember("user:bob", "My bike is red");

    Answer listed =
        client.get(ITEMS + "?provider=vector&ownerKey=user:alice&status=active&limit=10");
    assertThat(listed.status()).as(listed.body()).isEqualTo(200);
    assertThat(listed.json().get("total").asLong()).isEqualTo(1);
    assertThat(listed.json().get("items").get(0).get("id").asString()).isEqualTo(id);

    Answer counted = client.get(ITEMS + "/count?provider=vector&ownerKey=user:alice");
    assertThat(counted.json().get("byStatus").get("active").asLong()).isEqualTo(1);

    Answer read = client.get(ITEMS + "/" + id + "?provider=vector&ownerKey=user:alice");
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    String updatedAt = read.json().get("updatedAt").asString();

    Answer edited =
        patch(
            client,
            ITEMS + "/" + id + "?provider=vector&ownerKey=user:alice",
            "{\"text\":\"My bike is green\",\"updatedAt\":\"" + updatedAt + "\"}");
    assertThat(edited.status()).as(edited.body()).isEqualTo(200);
    assertThat(edited.json().get("text").asString()).isEqualTo("My bike is green");

    Answer stale =
        patch(
            client,
            ITEMS + "/" + id + "?provider=vector&ownerKey=user:alice",
            "{\"text\":\"My bike is black\",\"updatedAt\":\"" + updatedAt + "\"}");
    assertThat(stale.status()).as(stale.body()).isEqualTo(409);
    assertThat(
            client
                .get(ITEMS + "/" + id + "?provider=vector&ownerKey=user:alice")
                .json()
                .get("text")
                .asString())
        .isEqualTo("My bike is green");

    Answer archived =
        client.post(ITEMS + "/" + id + "/archive?provider=vector&ownerKey=user:alice", "");
    assertThat(archived.status()).as(archived.body()).isEqualTo(200);
    assertThat(archived.json().get("status").asString()).isEqualTo("archived");
    assertThat(
            client
                .post(ITEMS + "/" + id + "/archive?provider=vector&ownerKey=user:alice", "")
                .status())
        .isEqualTo(409);

    Answer history = client.get(ITEMS + "/" + id + "/history?provider=vector&ownerKey=user:alice");
    assertThat(history.status()).as(history.body()).isEqualTo(200);
    JsonNode events = history.json().get("events");
    assertThat(events).hasSize(3);
    assertThat(events.get(0).get("event").asString()).isEqualTo("added");
    assertThat(events.get(1).get("event").asString()).isEqualTo("updated");
    assertThat(events.get(1).get("previous").asString()).isEqualTo("My bike is blue");
    assertThat(events.get(1).get("actor").asString()).isEqualTo("memstack.security.tokens[0]");
    assertThat(events.get(2).get("status").asString()).isEqualTo("archived");

    // bob's token sees neither alice's memory nor may act for alice
    HostClient bob = client.as(BOB_MEMBER);
    assertThat(bob.get(ITEMS + "/" + id + "?provider=vector&ownerKey=user:bob").status())
        .isEqualTo(404);
    assertThat(bob.get(ITEMS + "/" + id + "?provider=vector&ownerKey=user:alice").status())
        .isEqualTo(403);
    assertThat(bob.get(ITEMS + "?provider=vector&ownerKey=user:bob").json().get("total").asLong())
        .isEqualTo(1);
    // a viewer reads but changes nothing
    HostClient viewer = client.as(TestTokens.VIEWER);
    assertThat(viewer.get(ITEMS + "/" + id + "?provider=vector&ownerKey=user:alice").status())
        .isEqualTo(200);
    assertThat(viewer.delete(ITEMS + "/" + id + "?provider=vector&ownerKey=user:alice").status())
        .isEqualTo(403);

    Answer forgotten = client.delete(ITEMS + "/" + id + "?provider=vector&ownerKey=user:alice");
    assertThat(forgotten.status()).as(forgotten.body()).isEqualTo(200);
    assertThat(client.get(ITEMS + "/" + id + "?provider=vector&ownerKey=user:alice").status())
        .isEqualTo(404);
    Answer after = client.get(ITEMS + "/" + id + "/history?provider=vector&ownerKey=user:alice");
    assertThat(after.status()).as(after.body()).isEqualTo(200);
    assertThat(after.json().get("events")).hasSize(1);
    assertThat(after.body()).contains("forgotten").doesNotContain("bike");
  }

  @Test
  void withoutAProviderTheRoutesServeBuiltinsEntriesWithTheirHistory() {
    client
        .putFile(
            "/api/v1/agents/a1/workspace/files/MEMORY.md?ownerKey=user:carol&scope=personal",
            "# MEMORY.md\n\n## Boats\n- Carol sails the Skerry.\n- The mooring is at pier 4.\n")
        .expect(200);

    Answer listed = client.get(ITEMS + "?ownerKey=user:carol&text=Skerry");
    assertThat(listed.status()).as(listed.body()).isEqualTo(200);
    JsonNode item = listed.json().get("items").get(0);
    assertThat(item.get("id").asString()).startsWith("b-");
    assertThat(item.get("type").asString()).isEqualTo("memory");
    assertThat(item.get("section").asString()).isEqualTo("Boats");
    String id = item.get("id").asString();

    Answer edited =
        patch(
            client,
            ITEMS + "/" + id + "?ownerKey=user:carol",
            "{\"text\":\"Carol sails the Fulmar.\",\"updatedAt\":\""
                + item.get("updatedAt").asString()
                + "\"}");
    assertThat(edited.status()).as(edited.body()).isEqualTo(200);
    assertThat(edited.json().get("id").asString()).isNotEqualTo(id);
    Answer stale =
        patch(
            client,
            ITEMS + "/" + edited.json().get("id").asString() + "?ownerKey=user:carol",
            "{\"text\":\"Carol sails the Gannet.\",\"updatedAt\":\""
                + item.get("updatedAt").asString()
                + "\"}");
    assertThat(stale.status()).as(stale.body()).isEqualTo(409);

    JsonNode events = client.get(ITEMS + "/" + id + "/history?ownerKey=user:carol").json();
    assertThat(events.get("events"))
        .extracting(e -> e.get("event").asString())
        .containsExactly("added", "updated");
    assertThat(events.get("events").get(0).get("actor").asString())
        .as("the file PUT's token")
        .isEqualTo("memstack.security.tokens[0]");
    assertThat(events.get("events").get(1).get("previous").asString())
        .isEqualTo("Carol sails the Skerry.");
    assertThat(client.delete(ITEMS + "/" + id + "?ownerKey=user:carol").status()).isEqualTo(200);
    assertThat(client.get(ITEMS + "/" + id + "/history?ownerKey=user:carol").body())
        .contains("forgotten")
        .doesNotContain("Skerry")
        .doesNotContain("Fulmar");
  }

  @Test
  void withoutAProviderTheListMergesEveryProviderAndAnIdFindsItsOwn() {
    client
        .putFile(
            "/api/v1/agents/a1/workspace/files/MEMORY.md?ownerKey=user:dave&scope=personal",
            "# MEMORY.md\n\n## Garden\n- Dave grows runner beans.\n")
        .expect(200);
    String vectorId = remember("user:dave", "Dave's greenhouse is heated in winter");

    Answer listed = client.get(ITEMS + "?ownerKey=user:dave&limit=100");
    assertThat(listed.status()).as(listed.body()).isEqualTo(200);
    JsonNode items = listed.json().get("items");
    assertThat(items).extracting(i -> i.get("provider").asString()).contains("builtin", "vector");
    assertThat(listed.json().get("total").asLong()).isEqualTo(items.size());
    assertThat(listed.json().get("providers"))
        .extracting(p -> p.get("provider").asString())
        .containsExactly("builtin", "vector");
    for (int i = 1; i < items.size(); i++) {
      assertThat(items.get(i - 1).get("createdAt").asString())
          .as("newest first")
          .isGreaterThanOrEqualTo(items.get(i).get("createdAt").asString());
    }
    // a page of one, then the next: the same items, in the same order
    JsonNode first = client.get(ITEMS + "?ownerKey=user:dave&limit=1").json().get("items");
    JsonNode second =
        client.get(ITEMS + "?ownerKey=user:dave&limit=1&offset=1").json().get("items");
    assertThat(first.get(0).get("id")).isEqualTo(items.get(0).get("id"));
    assertThat(second.get(0).get("id")).isEqualTo(items.get(1).get("id"));

    JsonNode counted = client.get(ITEMS + "/count?ownerKey=user:dave").json();
    assertThat(counted.get("total").asLong()).isEqualTo(items.size());
    assertThat(counted.get("byProvider").get("vector").asLong()).isPositive();
    assertThat(counted.get("byProvider").get("builtin").asLong()).isPositive();

    Answer read = client.get(ITEMS + "/" + vectorId + "?ownerKey=user:dave");
    assertThat(read.status()).as(read.body()).isEqualTo(200);
    assertThat(read.json().get("provider").asString()).isEqualTo("vector");
    assertThat(read.json().get("text").asString()).contains("greenhouse");
    Answer archived = client.post(ITEMS + "/" + vectorId + "/archive?ownerKey=user:dave", "");
    assertThat(archived.status()).as(archived.body()).isEqualTo(200);
    assertThat(client.get(ITEMS + "/no-such-id?ownerKey=user:dave").status()).isEqualTo(404);
    // another owner finds neither
    assertThat(client.get(ITEMS + "/" + vectorId + "?ownerKey=user:erin").status()).isEqualTo(404);
  }

  @Test
  void badInputIsA400NamingTheFieldAndAnUnknownProviderA404() {
    Answer limit = client.get(ITEMS + "?ownerKey=user:alice&limit=ten");
    assertThat(limit.status()).as(limit.body()).isEqualTo(400);
    assertThat(limit.json().get("field").asString()).isEqualTo("limit");

    Answer status = client.get(ITEMS + "?ownerKey=user:alice&status=gone");
    assertThat(status.status()).as(status.body()).isEqualTo(400);
    assertThat(status.json().get("field").asString()).isEqualTo("status");

    Answer noText = patch(client, ITEMS + "/x?ownerKey=user:alice", "{\"updatedAt\":\"x\"}");
    assertThat(noText.status()).as(noText.body()).isEqualTo(400);
    assertThat(noText.json().get("field").asString()).isEqualTo("text");

    Answer extra =
        patch(
            client,
            ITEMS + "/x?ownerKey=user:alice",
            "{\"text\":\"a\",\"updatedAt\":\"x\",\"z\":1}");
    assertThat(extra.status()).as(extra.body()).isEqualTo(400);
    assertThat(extra.json().get("field").asString()).isEqualTo("z");

    Answer badTime =
        patch(
            client,
            ITEMS + "/x?ownerKey=user:alice",
            "{\"text\":\"a\",\"updatedAt\":\"yesterday\"}");
    assertThat(badTime.status()).as(badTime.body()).isIn(400, 404);

    Answer unknown = client.get(ITEMS + "?ownerKey=user:alice&provider=nope");
    assertThat(unknown.status()).as(unknown.body()).isEqualTo(404);
    assertThat(unknown.body()).contains("nope");
  }
}
