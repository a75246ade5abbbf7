package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.memstack.spi.Capability;
import dev.memstack.spi.StandardTools;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.ToolSpec;
import dev.memstack.spi.Turn;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Kit checks of {@code MEMORY_ADMIN} (SPI 0.5.0): the standard tools with their effects, and one
 * memory's life through them, for its own owner only: listed by its words, read, an edit on a stale
 * {@code updatedAt} refused as a conflict, an edit kept with the earlier text in its history, a
 * forget that leaves only that it happened; and the agent's owners listed with their counts, each
 * owner alone to itself. The memories are synced turns, so the checks of behaviour need {@code
 * RECALLS_TURNS} too.
 */
abstract class MemoryAdminChecks extends CheckGroup {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  MemoryAdminChecks(MemoryProviderCompatibilityKit kit) {
    super(kit);
  }

  @BeforeEach
  void requireAdmin() {
    assumeCapability(Capability.MEMORY_ADMIN);
  }

  @Test
  @DisplayName("offers every memory-admin tool with its effect")
  void offersTheAdminTools() {
    Map<String, ToolSpec> offered = new HashMap<>();
    provider().tools().forEach(spec -> offered.put(spec.name(), spec));
    for (String name : StandardTools.required(Capability.MEMORY_ADMIN)) {
      assertThat(offered).as("tools of %s", provider().id()).containsKey(name);
      ToolSpec.Effect effect = offered.get(name).effect();
      if (StandardTools.readOnly(name)) {
        assertThat(effect).as("effect of %s", name).isEqualTo(ToolSpec.Effect.READ);
      } else {
        assertThat(effect.changesMemory()).as("%s changes memory", name).isTrue();
      }
    }
  }

  @Test
  @DisplayName("lists, edits with optimistic locking, keeps the history and forgets one memory")
  void oneMemorysLife() {
    assumeCapability(Capability.RECALLS_TURNS);
    Turn turn = turn(AGENT, ALICE, "My favourite band is " + ALICE_PHRASE + ".", "Noted.");
    sync(turn);
    awaitIndexed(provider());

    JsonNode listed = call(ALICE, StandardTools.LIST_MEMORIES, "{\"text\":\"zeppelin\"}");
    assertThat(listed.get("items")).as("list_memories with text: %s", listed).isNotEmpty();
    JsonNode item = listed.get("items").get(0);
    String id = item.get("id").asString();
    assertThat(item.get("text").asString()).containsIgnoringCase("zeppelin");
    String updatedAt = item.get("updatedAt").asString();
    assertThat(call(ALICE, StandardTools.GET_MEMORY, idArgs(id)).get("id").asString())
        .isEqualTo(id);
    assertThat(kind(BOB, StandardTools.GET_MEMORY, idArgs(id)))
        .as("another owner reads alice's memory")
        .isEqualTo(ToolException.Kind.NOT_FOUND);
    assertThat(count(ALICE)).isPositive();

    String stale = "{\"id\":\"" + id + "\",\"text\":\"x\",\"updatedAt\":\"2000-01-01T00:00:00Z\"}";
    assertThat(kind(ALICE, StandardTools.EDIT_MEMORY, stale))
        .as("an edit on a stale updatedAt")
        .isEqualTo(ToolException.Kind.CONFLICT);
    JsonNode edited =
        call(
            ALICE,
            StandardTools.EDIT_MEMORY,
            "{\"id\":\""
                + id
                + "\",\"text\":\"My favourite band changed.\",\"updatedAt\":\""
                + updatedAt
                + "\"}");
    assertThat(edited.get("text").asString()).contains("My favourite band changed.");
    JsonNode history = call(ALICE, StandardTools.MEMORY_HISTORY, idArgs(id));
    assertThat(history.get("events").toString())
        .as("history after an edit")
        .contains("updated")
        .containsIgnoringCase("zeppelin");

    call(ALICE, StandardTools.DELETE_MEMORY, idArgs(id));
    assertThat(kind(ALICE, StandardTools.GET_MEMORY, idArgs(id)))
        .isEqualTo(ToolException.Kind.NOT_FOUND);
    JsonNode forgotten = call(ALICE, StandardTools.MEMORY_HISTORY, idArgs(id));
    assertThat(forgotten.get("events").toString())
        .as("history after a forget")
        .contains("forgotten")
        .doesNotContainIgnoringCase("zeppelin")
        .doesNotContain("favourite band changed");
  }

  @Test
  @DisplayName(
      "lists the agent's owners in key order with their counts, each owner alone to itself")
  void listsTheAgentsOwnersWithTheirCounts() {
    assumeCapability(Capability.RECALLS_TURNS);
    dev.memstack.spi.OwnerKey elsewhere = dev.memstack.spi.OwnerKey.of("user:kit-other-agent");
    sync(aliceTurn(AGENT));
    sync(bobTurn(AGENT));
    sync(turn(OTHER_AGENT, elsewhere, "My locker code is 4711.", "Noted."));
    awaitIndexed(provider());

    JsonNode all = call(null, StandardTools.LIST_OWNERS, "{\"limit\":1000}");
    assertThat(all.get("owners")).as("list_owners: %s", all).isNotNull();
    java.util.List<String> keys = new java.util.ArrayList<>();
    all.get("owners").forEach(owner -> keys.add(owner.get("ownerKey").asString()));
    assertThat(keys)
        .as("owners of %s", AGENT)
        .contains(ALICE.value(), BOB.value())
        .doesNotContain(elsewhere.value())
        .isSorted();
    assertThat(all.get("total").asLong()).isEqualTo(keys.size());
    all.get("owners")
        .forEach(owner -> assertThat(owner.get("count").asLong()).as("%s", owner).isPositive());

    JsonNode keysOnly = call(null, StandardTools.LIST_OWNERS, "{\"limit\":1000,\"counts\":false}");
    java.util.List<String> uncounted = new java.util.ArrayList<>();
    keysOnly.get("owners").forEach(owner -> uncounted.add(owner.get("ownerKey").asString()));
    assertThat(uncounted).as("the keys without counts: %s", keysOnly).isEqualTo(keys);

    JsonNode page = call(null, StandardTools.LIST_OWNERS, "{\"offset\":1,\"limit\":1}");
    assertThat(page.get("total").asLong()).isEqualTo(keys.size());
    assertThat(page.get("owners").get(0).get("ownerKey").asString()).isEqualTo(keys.get(1));

    JsonNode own = call(ALICE, StandardTools.LIST_OWNERS, "{}");
    assertThat(own.get("owners")).as("list_owners called for alice: %s", own).hasSize(1);
    assertThat(own.get("owners").get(0).get("ownerKey").asString()).isEqualTo(ALICE.value());
    assertThat(own.get("owners").get(0).get("count").asLong()).isEqualTo(count(ALICE, true));
  }

  private long count(dev.memstack.spi.OwnerKey owner, boolean personalOnly) {
    String arguments = personalOnly ? "{\"scope\":\"personal\"}" : "{}";
    return call(owner, StandardTools.COUNT_MEMORIES, arguments).get("total").asLong();
  }

  private long count(dev.memstack.spi.OwnerKey owner) {
    return call(owner, StandardTools.COUNT_MEMORIES, "{}").get("total").asLong();
  }

  private static String idArgs(String id) {
    return "{\"id\":\"" + id + "\"}";
  }

  private JsonNode call(dev.memstack.spi.OwnerKey owner, String tool, String arguments) {
    return JSON.readTree(
        provider()
            .callTool(
                new ToolCall(
                    AGENT,
                    owner,
                    tool,
                    arguments,
                    EnumSet.allOf(dev.memstack.spi.Scope.class),
                    "kit")));
  }

  private ToolException.Kind kind(dev.memstack.spi.OwnerKey owner, String tool, String arguments) {
    ToolException e = catchThrowableOfType(ToolException.class, () -> call(owner, tool, arguments));
    assertThat(e).as("%s should be refused", tool).isNotNull();
    return e.kind();
  }
}
