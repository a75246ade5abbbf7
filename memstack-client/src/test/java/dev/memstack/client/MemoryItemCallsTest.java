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

/** The calls on memories one by one: list, count, read, edit, status, forget and history. */
class MemoryItemCallsTest {

  static final String BASE = "/api/v1/agents/a1/memory/items";

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
  void listAndCountPassTheOwnerAndTheFilters() {
    host.on("GET", BASE, Reply.json(200, "{\"total\":1,\"offset\":0,\"limit\":5,\"items\":[]}"));
    host.on("GET", BASE + "/count", Reply.json(200, "{\"total\":3}"));

    assertThat(
            client
                .memories("user:1", Map.of("limit", "5", "text", "bike & car"))
                .get("total")
                .asLong())
        .isEqualTo(1);
    assertThat(client.countMemories(null, Map.of("status", "active")).get("total").asLong())
        .isEqualTo(3);
    assertThat(host.received("GET", BASE).get(0).query())
        .isEqualTo("ownerKey=user%3A1&limit=5&text=bike+%26+car");
    assertThat(host.received("GET", BASE + "/count").get(0).query()).isEqualTo("status=active");
  }

  @Test
  void editSendsTextAndUpdatedAtAndAStaleOneIs409() {
    host.on(
        "PATCH",
        BASE + "/m%201",
        Reply.json(409, "{\"error\":\"conflict\",\"message\":\"memory m 1 was changed\"}"));
    MemstackApiException stale =
        catchThrowableOfType(
            MemstackApiException.class,
            () -> client.editMemory("user:1", "m 1", "new text", "2026-04-02T10:00:00Z"));
    assertThat(stale.status()).isEqualTo(409);
    Received request = host.received("PATCH", BASE + "/m%201").get(0);
    assertThat(request.body())
        .contains("\"text\":\"new text\"")
        .contains("\"updatedAt\":\"2026-04-02T10:00:00Z\"");
    assertThat(request.query()).isEqualTo("ownerKey=user%3A1");
  }

  @Test
  void statusForgetAndHistoryUseTheirRoutes() {
    host.on("POST", BASE + "/m1/suppress", Reply.json(200, "{\"status\":\"suppressed\"}"));
    host.on("DELETE", BASE + "/m1", Reply.json(200, "{\"deleted\":true}"));
    host.on("GET", BASE + "/m1/history", Reply.json(200, "{\"forgotten\":true,\"events\":[]}"));
    host.on("GET", BASE + "/m1", Reply.json(200, "{\"id\":\"m1\"}"));

    assertThat(client.setMemoryStatus("user:1", "m1", "suppressed").get("status").asString())
        .isEqualTo("suppressed");
    assertThat(client.forgetMemory("user:1", "m1").get("deleted").asBoolean()).isTrue();
    assertThat(client.memoryHistory("user:1", "m1").get("forgotten").asBoolean()).isTrue();
    assertThat(client.memory("user:1", "m1").get("id").asString()).isEqualTo("m1");
    assertThatThrownBy(() -> client.setMemoryStatus("user:1", "m1", "superseded"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("archived, suppressed or active");
  }
}
