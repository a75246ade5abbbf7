package dev.memstack.host.items;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The memory list without {@code provider} when one running provider claims MEMORY_ADMIN (vector,
 * builtin off): the provider's own page at any offset, in one call, each item naming the provider.
 */
@HostTest
class OneAdminProviderItemsApiTest {

  @RegisterExtension
  static final HostFolder HOST = HostFolder.allPlugins("one-admin-provider").disabled("builtin");

  private static final String ITEMS = "/api/v1/agents/a1/memory/items";

  @Autowired HostClient client;

  @Test
  @DisplayName("pages the one provider's memories at any offset, each naming the provider")
  void pagesTheOneProvider() {
    for (String text : new String[] {"My bike is blue", "I keep bees", "I sail on Sundays"}) {
      Answer stored =
          client.post(
              "/api/v1/agents/a1/tools/vector/remember",
              "{\"ownerKey\":\"user:ann\",\"text\":\"" + text + "\"}");
      assertThat(stored.status()).as(stored.body()).isEqualTo(200);
    }

    Answer page = client.get(ITEMS + "?ownerKey=user:ann&offset=1&limit=1");
    assertThat(page.status()).as(page.body()).isEqualTo(200);
    JsonNode answer = page.json();
    assertThat(answer.get("total").asLong()).isEqualTo(3);
    assertThat(answer.get("items")).hasSize(1);
    assertThat(answer.get("items").get(0).get("text").asString()).isEqualTo("I keep bees");
    assertThat(answer.get("items").get(0).get("provider").asString()).isEqualTo("vector");
    assertThat(answer.get("providers").get(0).get("provider").asString()).isEqualTo("vector");

    // a merged listing stops at offset + limit 10,000; one provider's page goes as deep as it has
    Answer deep = client.get(ITEMS + "?ownerKey=user:ann&offset=20000&limit=20");
    assertThat(deep.status()).as(deep.body()).isEqualTo(200);
    assertThat(deep.json().get("total").asLong()).isEqualTo(3);
    assertThat(deep.json().get("items")).isEmpty();
  }
}
