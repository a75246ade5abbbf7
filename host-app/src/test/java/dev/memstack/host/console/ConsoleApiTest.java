package dev.memstack.host.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.security.TestTokens;
import dev.memstack.host.testing.Eventually;
import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The console's admin API on a real host with the real plugins: the owners of an agent with their
 * counts (paged, filtered, each token kept to its owners, also on the tool route), the statistics
 * of an agent and of an owner, and the samples the sampler takes (every second here).
 */
@HostTest
class ConsoleApiTest {

  private static final String BOB_MEMBER = "test-bob-member-token-0123456789abcdef";

  @RegisterExtension
  static final HostFolder HOST =
      HostFolder.allPlugins("console-api")
          .addToken(TestTokens.VIEWER, "viewer", null)
          .addToken(BOB_MEMBER, "member", "user:bob")
          .addToken(TestTokens.PLATFORM, "member", "api:*")
          .with(ConsoleProperties.INTERVAL_KEY, "1s");

  @Autowired HostClient client;

  private void remember(String agent, String owner, String text) {
    String body =
        owner == null
            ? "{\"text\":\"" + text + "\",\"scope\":\"team\"}"
            : "{\"ownerKey\":\"" + owner + "\",\"text\":\"" + text + "\"}";
    Answer stored = client.post("/api/v1/agents/" + agent + "/tools/vector/remember", body);
    assertThat(stored.status()).as(stored.body()).isEqualTo(200);
  }

  private static List<String> keys(Answer answer) {
    List<String> keys = new ArrayList<>();
    answer.json().get("owners").forEach(o -> keys.add(o.get("ownerKey").asString()));
    return keys;
  }

  @Test
  @DisplayName("owners: sorted by key, paged, filtered, counted per provider, kept to the token")
  void ownersArePagedFilteredAndKeptToTheToken() {
    remember("o1", "user:alice", "I ride a blue bike");
    remember("o1", "user:alice", "I keep two cats named Pixel and Byte");
    remember("o1", "user:bob", "I brew coffee with a moka pot");
    remember("o1", "api:7", "I live in Lisbon");
    remember("o1", "api:8", "I study astronomy at night");
    remember("o2", "user:carol", "Another agent's owner");

    Answer all = client.get("/api/v1/agents/o1/owners");
    assertThat(all.status()).as(all.body()).isEqualTo(200);
    assertThat(keys(all)).containsExactly("api:7", "api:8", "user:alice", "user:bob");
    assertThat(all.json().get("total").asLong()).isEqualTo(4);
    assertThat(all.json().get("offset").asInt()).isZero();
    assertThat(all.json().get("limit").asInt()).isEqualTo(50);
    JsonNode alice = all.json().get("owners").get(2);
    assertThat(alice.get("counts").get("vector").asLong()).isEqualTo(2);
    assertThat(alice.get("total").asLong()).isEqualTo(2);

    Answer page = client.get("/api/v1/agents/o1/owners?offset=1&limit=2");
    assertThat(keys(page)).containsExactly("api:8", "user:alice");
    assertThat(page.json().get("total").asLong()).isEqualTo(4);
    assertThat(keys(client.get("/api/v1/agents/o1/owners?q=ALI"))).containsExactly("user:alice");
    assertThat(keys(client.get("/api/v1/agents/o2/owners"))).containsExactly("user:carol");

    // a viewer reads them all; a token bound to one owner sees itself; a prefix token its prefix
    assertThat(keys(client.as(TestTokens.VIEWER).get("/api/v1/agents/o1/owners"))).hasSize(4);
    Answer bob = client.as(BOB_MEMBER).get("/api/v1/agents/o1/owners");
    assertThat(bob.status()).as(bob.body()).isEqualTo(200);
    assertThat(keys(bob)).containsExactly("user:bob");
    assertThat(bob.json().get("total").asLong()).isEqualTo(1);
    HostClient platform = client.as(TestTokens.PLATFORM);
    assertThat(keys(platform.get("/api/v1/agents/o1/owners"))).containsExactly("api:7", "api:8");
    assertThat(keys(platform.get("/api/v1/agents/o1/owners?q=user"))).isEmpty();

    // the tool itself keeps a bound token to its owners too
    String tools = "/api/v1/agents/o1/tools/vector/";
    assertThat(client.as(BOB_MEMBER).post(tools + "list_owners", "{}").status()).isEqualTo(403);
    Answer own = client.as(BOB_MEMBER).post(tools + "list_owners", "{\"ownerKey\":\"user:bob\"}");
    assertThat(own.status()).as(own.body()).isEqualTo(200);
    assertThat(keys(own)).containsExactly("user:bob");
    assertThat(platform.post(tools + "list_owners", "{\"prefix\":\"user:\"}").status())
        .isEqualTo(403);
    assertThat(keys(platform.post(tools + "list_owners", "{}"))).containsExactly("api:7", "api:8");
    assertThat(platform.post(tools + "count_memories", "{\"allOwners\":true}").status())
        .isEqualTo(403);
  }

  @Test
  @DisplayName("owners: a bad parameter is a 400 naming it")
  void ownersRefuseBadParameters() {
    for (String[] bad :
        new String[][] {
          {"limit=0", "limit"},
          {"limit=1001", "limit"},
          {"limit=ten", "limit"},
          {"offset=-1", "offset"},
          {"q=" + "x".repeat(257), "q"}
        }) {
      Answer answer = client.get("/api/v1/agents/o1/owners?" + bad[0]);
      assertThat(answer.status()).as(bad[0] + ": " + answer.body()).isEqualTo(400);
      assertThat(answer.json().get("field").asString()).isEqualTo(bad[1]);
    }
    Answer agent = client.get("/api/v1/agents/not%20an%20agent/owners");
    assertThat(agent.status()).as(agent.body()).isEqualTo(400);
  }

  @Test
  @DisplayName("stats: counts by provider, type and status, recent turns, the outbox and samples")
  void statsOfTheAgentAndOfAnOwner() {
    remember("s1", "user:alice", "I ride a blue bike");
    remember("s1", "user:alice", "I keep two cats named Pixel and Byte");
    remember("s1", "user:bob", "I brew coffee with a moka pot");
    remember("s1", null, "The team meets on Mondays");
    Answer turn = client.turn("s1", "user:alice", "t-1", "I moved to Porto last week", "Noted.");
    assertThat(turn.status()).as(turn.body()).isEqualTo(202);
    // delivered to every provider, so the counts below hold still
    Eventually.within(
        Duration.ofSeconds(30),
        () -> {
          Answer now = client.get("/api/v1/agents/s1/stats");
          assertThat(now.status()).as(now.body()).isEqualTo(200);
          assertThat(now.json().get("outbox").get("pending").asLong()).isZero();
        });

    Answer stats = client.get("/api/v1/agents/s1/stats");
    assertThat(stats.status()).as(stats.body()).isEqualTo(200);
    JsonNode counts = stats.json().get("counts");
    // both providers that claim MEMORY_ADMIN count: builtin keeps the turn in alice's daily note
    assertThat(counts.get("byProvider").has("builtin")).as(counts.toString()).isTrue();
    long total = 0;
    for (String provider : List.of("vector", "builtin")) {
      long ofProvider = counts.get("byProvider").get(provider).asLong();
      long owners = 0;
      for (JsonNode owner : client.get("/api/v1/agents/s1/owners").json().get("owners")) {
        owners += owner.get("counts").path(provider).asLong(0);
      }
      long shared =
          client
              .get("/api/v1/agents/s1/memory/items/count?scope=team&provider=" + provider)
              .json()
              .get("total")
              .asLong();
      assertThat(ofProvider)
          .as("%s: every owner's memories and the team's", provider)
          .isEqualTo(owners + shared);
      total += ofProvider;
    }
    long statuses = 0;
    for (JsonNode n : counts.get("byStatus")) {
      statuses += n.asLong();
    }
    assertThat(statuses).isEqualTo(total);
    assertThat(counts.get("byType").get("FACT").asLong()).isEqualTo(4);
    assertThat(stats.json().get("recent").get("turnsLastHour").asLong()).isEqualTo(1);
    assertThat(stats.json().get("recent").get("memoriesCreatedLastHour").asLong()).isEqualTo(total);
    JsonNode outbox = stats.json().get("outbox");
    assertThat(outbox.get("deadLetters").asLong()).isZero();
    assertThat(outbox.get("lagSeconds").asDouble()).isGreaterThanOrEqualTo(0);
    long memories = total;

    Answer bob = client.get("/api/v1/agents/s1/stats?ownerKey=user:bob");
    assertThat(bob.status()).as(bob.body()).isEqualTo(200);
    assertThat(bob.json().get("counts").get("byProvider").get("vector").asLong()).isEqualTo(1);
    assertThat(bob.json().get("recent").get("turnsLastHour").asLong()).isZero();
    Answer alice = client.get("/api/v1/agents/s1/stats?ownerKey=user:alice");
    assertThat(alice.json().get("recent").get("turnsLastHour").asLong()).isEqualTo(1);
    assertThat(alice.json().get("counts").get("byProvider").get("vector").asLong())
        .isEqualTo(
            client
                .get(
                    "/api/v1/agents/s1/memory/items/count?ownerKey=user:alice&scope=personal"
                        + "&provider=vector")
                .json()
                .get("total")
                .asLong());

    // the sampler takes a sample every second: the agent's memories once it is watched (asked
    // for), its turns since it had any
    Eventually.within(
        Duration.ofSeconds(15),
        () -> {
          JsonNode samples = client.get("/api/v1/agents/s1/stats").json().get("samples");
          assertThat(samples).isNotEmpty();
          JsonNode last = samples.get(samples.size() - 1);
          assertThat(last.has("memories")).as("a sample of the watched agent: %s", last).isTrue();
          assertThat(last.get("memories").asLong()).isEqualTo(memories);
          assertThat(last.get("pending").asLong()).isZero();
          assertThat(last.get("deadLetters").asLong()).isZero();
          assertThat(last.has("delivered")).isTrue();
          assertThat(last.get("at").asString()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        });
  }

  @Test
  @DisplayName("stats: a bound token sees its own owner only; bad parameters are a 400")
  void statsAreKeptToTheTokensOwners() {
    remember("s2", "user:bob", "I brew coffee with a moka pot");
    HostClient bob = client.as(BOB_MEMBER);
    assertThat(bob.get("/api/v1/agents/s2/stats").status()).isEqualTo(403);
    assertThat(bob.get("/api/v1/agents/s2/stats?ownerKey=user:alice").status()).isEqualTo(403);
    Answer own = bob.get("/api/v1/agents/s2/stats?ownerKey=user:bob");
    assertThat(own.status()).as(own.body()).isEqualTo(200);
    assertThat(own.json().get("counts").get("byProvider").get("vector").asLong()).isEqualTo(1);
    Eventually.within(
        Duration.ofSeconds(15),
        () ->
            assertThat(bob.get("/api/v1/agents/s2/stats?ownerKey=user:bob").json().get("samples"))
                .isNotEmpty());
    for (JsonNode sample :
        bob.get("/api/v1/agents/s2/stats?ownerKey=user:bob").json().get("samples")) {
      assertThat(sample.has("memories")).as("every owner's count: %s", sample).isFalse();
      assertThat(sample.has("pending")).isTrue();
    }
    assertThat(client.as(TestTokens.VIEWER).get("/api/v1/agents/s2/stats").status()).isEqualTo(200);

    Answer owner = client.get("/api/v1/agents/s2/stats?ownerKey=nobody");
    assertThat(owner.status()).as(owner.body()).isEqualTo(400);
    assertThat(owner.json().get("field").asString()).isEqualTo("ownerKey");
  }
}
