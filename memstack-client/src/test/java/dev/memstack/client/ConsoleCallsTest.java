package dev.memstack.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.client.ScriptedHost.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The console's calls: the owners of the agent and its statistics. */
class ConsoleCallsTest {

  private ScriptedHost host;
  private MemstackClient client;

  @BeforeEach
  void start() {
    host = ScriptedHost.start();
    client = MemstackClient.builder(host.url()).token("t-0123456789").agentId("a1").build();
  }

  @AfterEach
  void stop() {
    host.close();
  }

  @Test
  void listOwnersPassesThePageAndTheFilter() {
    host.on(
        "GET",
        "/api/v1/agents/a1/owners",
        Reply.json(
            200,
            "{\"owners\":[{\"ownerKey\":\"api:42\",\"counts\":{\"vector\":12},\"total\":12}],"
                + "\"offset\":10,\"limit\":5,\"total\":11}"));

    assertThat(client.listOwners(10, 5, "api 4").get("owners").get(0).get("ownerKey").asString())
        .isEqualTo("api:42");
    assertThat(client.listOwners(null, null, null).get("total").asLong()).isEqualTo(11);
    assertThat(host.received("GET", "/api/v1/agents/a1/owners").get(0).query())
        .isEqualTo("limit=5&offset=10&q=api+4");
    assertThat(host.received("GET", "/api/v1/agents/a1/owners").get(1).query()).isNull();
  }

  @Test
  void statsNamesTheOwnerAndA403IsAnApiException() {
    host.on(
        "GET",
        "/api/v1/agents/a1/stats",
        Reply.json(200, "{\"counts\":{\"byProvider\":{\"vector\":3}},\"samples\":[]}"));

    assertThat(client.stats("user:1").get("counts").get("byProvider").get("vector").asLong())
        .isEqualTo(3);
    assertThat(client.stats(null).has("samples")).isTrue();
    assertThat(host.received("GET", "/api/v1/agents/a1/stats").get(0).query())
        .isEqualTo("ownerKey=user%3A1");
    assertThat(host.received("GET", "/api/v1/agents/a1/stats").get(1).query()).isNull();

    host.on(
        "GET",
        "/api/v1/agents/a1/stats",
        Reply.json(403, "{\"error\":\"forbidden\",\"message\":\"this token is bound to api:1\"}"));
    MemstackApiException refused =
        catchThrowableOfType(MemstackApiException.class, () -> client.stats(null));
    assertThat(refused.status()).isEqualTo(403);
  }
}
