package dev.memstack.host.proof;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.TestHost;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.node.ObjectNode;

/**
 * The conversation log over HTTP with two member tokens bound to {@code api:1} and {@code api:2}
 * (the reproduction of issue 15, items 2 and 8): {@code api:1} reusing {@code api:2}'s conversation
 * id and turn id neither hides {@code api:2}'s turn nor learns that it exists, {@code api:1}
 * flooding a conversation evicts no turn of {@code api:2}, each token reads only its own owner's
 * turns, and erasing {@code api:2} leaves no file in the conversation log that holds its text.
 */
class ConversationIsolationTest {

  static final String AGENT = "log-agent";
  static final String ONE = "member-token-of-api-1-0123456789";
  static final String TWO = "member-token-of-api-2-0123456789";
  static final String PREFIX = "viewer-token-of-api-star-0123456";

  @RegisterExtension
  static final TestHost HOST =
      TestHost.withTestEmbedder("conversations")
          // the conversation log is the host's own; the providers only slow the flood down
          .with("memstack.providers.vector.enabled", "false")
          .withToken(ONE, "member", "api:1")
          .withToken(TWO, "member", "api:2")
          .withToken(PREFIX, "viewer", "api:*");

  private static final HostClient admin = HOST.client();
  private static final HostClient one = HOST.client().as(ONE);
  private static final HostClient two = HOST.client().as(TWO);
  private static final HostClient platform = HOST.client().as(PREFIX);

  @Test
  void reusingAnotherOwnersConversationAndTurnIdNeitherShadowsNorRevealsItsTurn() {
    assertThat(turn(one, "api:1", "c-api2", "t-shared", "decoy from one").status()).isEqualTo(202);
    assertThat(turn(two, "api:2", "c-api2", "t-shared", "two's real turn shadowmark").status())
        .isEqualTo(202);

    Answer mine = conversation(two, "c-api2", null).expect(200);
    assertThat(mine.json().get("ownerKey").asString()).isEqualTo("api:2");
    assertThat(messages(mine)).containsExactly("two's real turn shadowmark");
    Answer theirs = conversation(one, "c-api2", null);
    assertThat(messages(theirs)).containsExactly("decoy from one");
    assertThat(theirs.body()).doesNotContain("shadowmark");
    // a conversation of the other owner only is unknown to this one
    assertThat(turn(two, "api:2", "c-only-two", "t-1", "only two").status()).isEqualTo(202);
    assertThat(conversation(one, "c-only-two", null).status()).isEqualTo(404);
  }

  @Test
  void floodingAConversationEvictsNoTurnOfAnotherOwner() {
    assertThat(turn(two, "api:2", "c-flood", "keep-me", "two's early turn floodmark").status())
        .isEqualTo(202);
    for (int i = 0; i < 205; i++) {
      Answer flood = turn(one, "api:1", "c-flood", "flood-" + i, "flood " + i).expect(202);
    }

    Answer mine = conversation(two, "c-flood", null);
    assertThat(messages(mine)).containsExactly("two's early turn floodmark");
    Answer flooder = conversation(one, "c-flood", null);
    assertThat(flooder.json().get("count").asInt()).isEqualTo(200);
    assertThat(messages(flooder)).first().isEqualTo("flood 5");
  }

  @Test
  void aTokenReadsOnlyTheOwnersItCoversAndAnUnboundTokenMustNameOne() {
    assertThat(turn(two, "api:2", "c-read", "t-1", "two reads this").status()).isEqualTo(202);

    assertThat(conversation(one, "c-read", "api:2").status()).isEqualTo(403);
    Answer unnamed = conversation(admin, "c-read", null);
    assertThat(unnamed.status()).as(unnamed.toString()).isEqualTo(400);
    assertThat(unnamed.json().get("field").asString()).isEqualTo("ownerKey");
    Answer prefixUnnamed = conversation(platform, "c-read", null);
    assertThat(prefixUnnamed.status()).isEqualTo(400);
    assertThat(prefixUnnamed.json().get("field").asString()).isEqualTo("ownerKey");
    assertThat(messages(conversation(platform, "c-read", "api:2")))
        .containsExactly("two reads this");
    assertThat(messages(conversation(admin, "c-read", "api:2"))).containsExactly("two reads this");
    Answer invalid = conversation(admin, "c-read", "not%20an%20owner");
    assertThat(invalid.status()).isEqualTo(400);
    assertThat(invalid.json().get("field").asString()).isEqualTo("ownerKey");
  }

  @Test
  void erasingAnOwnerLeavesNoFileOfTheConversationLogThatHoldsItsText() {
    assertThat(turn(two, "api:2", "c-erase", "t-1", "erasemark-two secret").status())
        .isEqualTo(202);
    assertThat(turn(two, "api:2", "c-erase-2", "t-1", "erasemark-two again").status())
        .isEqualTo(202);
    assertThat(turn(one, "api:1", "c-erase", "t-1", "erasemark-one stays").status()).isEqualTo(202);
    Path log = HOST.dataDir().resolve("conversations");
    assertThat(filesContaining(log, "erasemark-two")).hasSize(2);

    Answer erased = two.send(two.request("/api/v1/owners/api:2/memory").DELETE().build());

    assertThat(erased.status()).as(erased.toString()).isEqualTo(200);
    assertThat(erased.json().get("conversationTurnsRemoved").asLong()).isGreaterThanOrEqualTo(2);
    assertThat(filesContaining(log, "erasemark-two")).isEmpty();
    assertThat(filesContaining(log, "api:2")).isEmpty();
    assertThat(filesContaining(log, "erasemark-one")).hasSize(1);
    assertThat(conversation(two, "c-erase", null).status()).isEqualTo(404);
    assertThat(messages(conversation(one, "c-erase", null))).containsExactly("erasemark-one stays");
  }

  private static Answer turn(
      HostClient client, String owner, String conversation, String turnId, String message) {
    ObjectNode body = HostClient.JSON.createObjectNode();
    body.put("ownerKey", owner);
    body.put("conversationId", conversation);
    body.put("turnId", turnId);
    body.put("userMessage", message);
    body.put("assistantReply", "ok");
    body.put("triggerSource", "api");
    return client.post("/api/v1/agents/" + AGENT + "/memory/turns", body.toString());
  }

  private static Answer conversation(HostClient client, String conversation, String owner) {
    String query = owner == null ? "" : "?ownerKey=" + owner;
    return client.send(
        client
            .request("/api/v1/agents/" + AGENT + "/conversations/" + conversation + query)
            .GET()
            .build());
  }

  private static List<String> messages(Answer conversation) {
    assertThat(conversation.status()).as(conversation.toString()).isEqualTo(200);
    return StreamSupport.stream(conversation.json().get("turns").spliterator(), false)
        .map(turn -> turn.get("userMessage").asString())
        .toList();
  }

  /** Every file under {@code root} whose bytes contain {@code marker} (UTF-8). */
  static List<Path> filesContaining(Path root, String marker) {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).filter(file -> contains(file, marker)).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean contains(Path file, String marker) {
    try {
      // byte for byte: the marker's UTF-8 bytes anywhere in the file
      String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
      return bytes.contains(
          new String(marker.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1));
    } catch (IOException e) {
      return false;
    }
  }
}
