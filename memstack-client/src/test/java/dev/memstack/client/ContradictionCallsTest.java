package dev.memstack.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.client.ScriptedHost.Received;
import dev.memstack.client.ScriptedHost.Reply;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The calls on the contradiction inbox: list, and decide one. */
class ContradictionCallsTest {

  static final String BASE = "/api/v1/agents/a1/memory/inbox";

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
  void listPassesTheOwnerAndThePage() {
    host.on("GET", BASE, Reply.json(200, "{\"total\":1,\"offset\":0,\"limit\":5,\"items\":[]}"));

    assertThat(client.contradictions("user:1", Map.of("limit", "5")).get("total").asLong())
        .isEqualTo(1);
    assertThat(host.received("GET", BASE).get(0).query()).isEqualTo("ownerKey=user%3A1&limit=5");
  }

  @Test
  void resolveSendsTheDecisionAndADecidedOneIs404() {
    host.on("POST", BASE + "/c-1", Reply.json(200, "{\"id\":\"c-1\",\"decision\":\"keep-new\"}"));
    host.on(
        "POST",
        BASE + "/c%202",
        Reply.json(404, "{\"error\":\"not_found\",\"message\":\"no open contradiction c 2\"}"));

    assertThat(client.resolveContradiction("user:1", "c-1", "keep-new").get("decision").asString())
        .isEqualTo("keep-new");
    Received request = host.received("POST", BASE + "/c-1").get(0);
    assertThat(request.body()).isEqualTo("{\"decision\":\"keep-new\"}");
    assertThat(request.query()).isEqualTo("ownerKey=user%3A1");
    MemstackApiException decided =
        catchThrowableOfType(
            MemstackApiException.class,
            () -> client.resolveContradiction("user:1", "c 2", "keep-old"));
    assertThat(decided.status()).isEqualTo(404);
    assertThatThrownBy(() -> client.resolveContradiction("user:1", "c-1", "keep-all"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keep-new, keep-old or keep-both");
  }
}
