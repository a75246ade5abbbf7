package dev.memstack.host.items;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.HostClient;
import dev.memstack.host.testing.HostClient.Answer;
import dev.memstack.host.testing.HostFolder;
import dev.memstack.host.testing.HostTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The merged memory list (builtin and vector, no {@code provider}): every page is the slice of the
 * whole list at its offset, also where the merge skips a provider's items that lie before the page
 * for sure without reading them.
 */
@HostTest
class MergedItemsPagingApiTest {

  @RegisterExtension static final HostFolder HOST = HostFolder.allPlugins("merged-paging");

  private static final String ITEMS = "/api/v1/agents/a1/memory/items?ownerKey=user:pat";

  @Autowired HostClient client;

  private static List<String> ids(Answer page) {
    assertThat(page.status()).as(page.body()).isEqualTo(200);
    List<String> ids = new ArrayList<>();
    page.json().get("items").forEach(item -> ids.add(item.get("id").asString()));
    return ids;
  }

  @Test
  @DisplayName("every page of the merged list is the slice of the whole list at its offset")
  void everyPageIsASliceOfTheWholeList() {
    for (int i = 0; i < 7; i++) {
      Answer stored =
          client.post(
              "/api/v1/agents/a1/tools/vector/remember",
              "{\"ownerKey\":\"user:pat\",\"text\":\"Pat's note number "
                  + (char) ('a' + i)
                  + " about "
                  + new String[] {"boats", "bees", "bread", "bikes", "books", "birds", "beans"}[i]
                  + "\"}");
      assertThat(stored.status()).as(stored.body()).isEqualTo(200);
    }
    Answer written =
        client.put(
            "/api/v1/agents/a1/workspace/files/MEMORY.md?ownerKey=user:pat&scope=personal",
            "{\"content\":\"# MEMORY.md\\n\\n## Notes\\n- Pat likes tea.\\n- Pat rows on Fridays.\\n\"}");
    assertThat(written.status()).as(written.body()).isIn(200, 201);

    JsonNode whole = client.get(ITEMS + "&limit=100").json();
    List<String> all = ids(client.get(ITEMS + "&limit=100"));
    assertThat(whole.get("total").asInt()).isEqualTo(all.size());
    assertThat(all).hasSizeGreaterThanOrEqualTo(9);
    for (int limit : new int[] {1, 2, 3}) {
      for (int offset = 0; offset < all.size() + 1; offset++) {
        assertThat(ids(client.get(ITEMS + "&offset=" + offset + "&limit=" + limit)))
            .as("offset %d, limit %d", offset, limit)
            .isEqualTo(
                all.subList(Math.min(offset, all.size()), Math.min(offset + limit, all.size())));
      }
    }
  }
}
