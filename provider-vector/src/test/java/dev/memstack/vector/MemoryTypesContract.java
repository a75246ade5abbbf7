package dev.memstack.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.HashingEmbedder;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.TestProviderContext;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Memory types, counts and named memories of the vector provider, on any store: a store's test
 * extends this class and gives its configuration keys in {@link #storeConfig()} (called once per
 * test, so it can name a fresh table; providers opened in one test share it).
 */
public abstract class MemoryTypesContract {

  protected static final AgentId AGENT = AgentId.of("assistant");
  protected static final AgentId OTHER_AGENT = AgentId.of("other-assistant");
  protected static final OwnerKey USER_1 = OwnerKey.of("user:1");
  protected static final OwnerKey USER_2 = OwnerKey.of("user:2");
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final List<String> BUILT_IN =
      List.of("FACT", "DECISION", "PREFERENCE", "TASK_PROGRESS", "REFERENCE", "RAW");

  /** The store's configuration keys ({@code store} included) for this test. */
  protected abstract Map<String, String> storeConfig();

  @TempDir protected Path dataDir;
  private Map<String, String> storeConfig;
  private final List<MemoryProvider> providers = new ArrayList<>();
  protected final MutableClock clock = MutableClock.at(Instant.parse("2026-03-02T09:30:00Z"));
  private int turns;

  @BeforeEach
  void configure() {
    storeConfig = storeConfig();
  }

  @AfterEach
  void closeProviders() {
    providers.forEach(MemoryProvider::close);
  }

  /** A provider on this test's store (a second one on pgvector acts as a second host). */
  protected MemoryProvider provider() {
    TestProviderContext context =
        TestProviderContext.builder()
            .instanceId("vector")
            .config(new HashMap<>(storeConfig))
            .dataDir(dataDir)
            .clock(clock)
            .embedder(new HashingEmbedder())
            .build();
    MemoryProvider provider = new VectorMemoryProviderFactory().create(context);
    providers.add(provider);
    return provider;
  }

  protected static JsonNode tool(
      MemoryProvider provider, AgentId agent, OwnerKey owner, String name, String args) {
    return JSON.readTree(provider.callTool(new ToolCall(agent, owner, name, args)));
  }

  protected static JsonNode tool(
      MemoryProvider provider, OwnerKey owner, String name, String args) {
    return tool(provider, AGENT, owner, name, args);
  }

  protected static List<String> keys(JsonNode listed) {
    return StreamSupport.stream(listed.get("types").spliterator(), false)
        .map(type -> type.get("key").asString())
        .toList();
  }

  private static ToolException.Kind kindOf(Throwable e) {
    return ((ToolException) e).kind();
  }

  private JsonNode remember(MemoryProvider provider, OwnerKey owner, String args) {
    clock.advance(Duration.ofMinutes(1));
    return tool(provider, owner, "remember", args);
  }

  @Nested
  @DisplayName("Memory types")
  class Types {

    @Test
    @DisplayName("lists the built-in types, each with a name and a description, as system types")
    void listsTheBuiltInTypes() {
      MemoryProvider provider = provider();

      JsonNode listed = tool(provider, USER_1, "memory_list_types", "{}");

      assertThat(keys(listed)).containsExactlyElementsOf(BUILT_IN);
      for (JsonNode type : listed.get("types")) {
        assertThat(type.get("system").asBoolean()).isTrue();
        assertThat(type.get("name").asString()).isNotBlank();
        assertThat(type.get("description").asString()).isNotBlank();
      }
    }

    @Test
    @DisplayName("a custom type can be created, listed and deleted, and its memories stay")
    void aCustomTypeCanBeCreatedListedAndDeleted() {
      MemoryProvider provider = provider();

      JsonNode created =
          tool(
              provider,
              USER_1,
              "memory_create_type",
              "{\"key\":\"meeting-note\",\"name\":\"Meeting note\","
                  + "\"description\":\"What a meeting decided\",\"icon\":\"calendar\"}");

      assertThat(created.get("created").asBoolean()).isTrue();
      assertThat(created.get("type").get("key").asString()).isEqualTo("MEETING_NOTE");
      JsonNode listed = tool(provider, USER_2, "memory_list_types", "{}");
      assertThat(keys(listed)).endsWith("MEETING_NOTE").hasSize(BUILT_IN.size() + 1);
      JsonNode custom = listed.get("types").get(BUILT_IN.size());
      assertThat(custom.get("name").asString()).isEqualTo("Meeting note");
      assertThat(custom.get("description").asString()).isEqualTo("What a meeting decided");
      assertThat(custom.get("icon").asString()).isEqualTo("calendar");
      assertThat(custom.get("system").asBoolean()).isFalse();

      JsonNode stored =
          remember(
              provider,
              USER_1,
              "{\"text\":\"The sprint review moved to Thursdays\",\"type\":\"meeting_note\"}");
      assertThat(stored.get("memory").get("type").asString()).isEqualTo("MEETING_NOTE");

      JsonNode deleted = tool(provider, USER_1, "memory_delete_type", "{\"key\":\"Meeting_Note\"}");

      assertThat(deleted.get("deleted").asBoolean()).isTrue();
      assertThat(keys(tool(provider, USER_1, "memory_list_types", "{}")))
          .containsExactlyElementsOf(BUILT_IN);
      JsonNode kept = tool(provider, USER_1, "list_memories", "{\"type\":\"MEETING_NOTE\"}");
      assertThat(kept.get("total").asInt()).isEqualTo(1);
      assertThatThrownBy(
              () -> tool(provider, USER_1, "memory_delete_type", "{\"key\":\"MEETING_NOTE\"}"))
          .extracting(MemoryTypesContract::kindOf)
          .isEqualTo(ToolException.Kind.NOT_FOUND);
    }

    @Test
    @DisplayName("a built-in type cannot be deleted, nor created again")
    void aBuiltInTypeCannotBeDeleted() {
      MemoryProvider provider = provider();

      assertThatThrownBy(() -> tool(provider, USER_1, "memory_delete_type", "{\"key\":\"fact\"}"))
          .isInstanceOf(ToolException.class)
          .hasMessageContaining("FACT")
          .hasMessageContaining("built in")
          .extracting(MemoryTypesContract::kindOf)
          .isEqualTo(ToolException.Kind.CONFLICT);
      assertThatThrownBy(
              () ->
                  tool(
                      provider,
                      USER_1,
                      "memory_create_type",
                      "{\"key\":\"PREFERENCE\",\"name\":\"Mine\"}"))
          .extracting(MemoryTypesContract::kindOf)
          .isEqualTo(ToolException.Kind.CONFLICT);
      assertThat(keys(tool(provider, USER_1, "memory_list_types", "{}")))
          .containsExactlyElementsOf(BUILT_IN);
    }

    @Test
    @DisplayName("creating a key that exists is a conflict and changes nothing")
    void creatingAnExistingKeyIsAConflict() {
      MemoryProvider provider = provider();
      tool(provider, USER_1, "memory_create_type", "{\"key\":\"RECIPE\",\"name\":\"Recipe\"}");

      assertThatThrownBy(
              () ->
                  tool(
                      provider,
                      USER_2,
                      "memory_create_type",
                      "{\"key\":\"recipe\",\"name\":\"Another\"}"))
          .isInstanceOf(ToolException.class)
          .hasMessageContaining("RECIPE")
          .extracting(MemoryTypesContract::kindOf)
          .isEqualTo(ToolException.Kind.CONFLICT);
      JsonNode listed = tool(provider, USER_1, "memory_list_types", "{}");
      assertThat(listed.get("types").get(BUILT_IN.size()).get("name").asString())
          .isEqualTo("Recipe");
    }

    @Test
    @DisplayName("refuses a malformed key, naming the argument")
    void refusesAMalformedKey() {
      MemoryProvider provider = provider();

      assertThatThrownBy(
              () ->
                  tool(
                      provider,
                      USER_1,
                      "memory_create_type",
                      "{\"key\":\"9 lives\",\"name\":\"Cats\"}"))
          .extracting(e -> ((ToolException) e).field())
          .isEqualTo("key");
      assertThatThrownBy(() -> tool(provider, USER_1, "memory_create_type", "{\"key\":\"CATS\"}"))
          .extracting(e -> ((ToolException) e).field())
          .isEqualTo("name");
    }

    @Test
    @DisplayName("custom types belong to their agent: another agent neither sees nor uses them")
    void customTypesArePerAgent() {
      MemoryProvider provider = provider();
      tool(provider, USER_1, "memory_create_type", "{\"key\":\"RECIPE\",\"name\":\"Recipe\"}");

      assertThat(keys(tool(provider, OTHER_AGENT, USER_1, "memory_list_types", "{}")))
          .containsExactlyElementsOf(BUILT_IN);
      assertThatThrownBy(
              () ->
                  tool(
                      provider,
                      OTHER_AGENT,
                      USER_1,
                      "remember",
                      "{\"text\":\"Pancakes need buttermilk\",\"type\":\"RECIPE\"}"))
          .extracting(e -> ((ToolException) e).field())
          .isEqualTo("type");
      assertThatThrownBy(
              () ->
                  tool(provider, OTHER_AGENT, USER_1, "memory_delete_type", "{\"key\":\"RECIPE\"}"))
          .extracting(MemoryTypesContract::kindOf)
          .isEqualTo(ToolException.Kind.NOT_FOUND);
      assertThat(keys(tool(provider, USER_1, "memory_list_types", "{}"))).contains("RECIPE");
    }

    @Test
    @DisplayName("remember refuses a type the agent does not have, listing the known ones")
    void rememberRefusesAnUnknownType() {
      MemoryProvider provider = provider();
      tool(provider, USER_1, "memory_create_type", "{\"key\":\"RECIPE\",\"name\":\"Recipe\"}");

      assertThatThrownBy(
              () ->
                  remember(
                      provider,
                      USER_1,
                      "{\"text\":\"Pancakes need buttermilk\",\"type\":\"DISH\"}"))
          .isInstanceOf(ToolException.class)
          .hasMessageContaining("DISH")
          .hasMessageContaining("FACT")
          .hasMessageContaining("RECIPE")
          .extracting(e -> ((ToolException) e).field())
          .isEqualTo("type");
      assertThat(
              remember(
                      provider,
                      USER_1,
                      "{\"text\":\"Pancakes need buttermilk\",\"type\":\"recipe\"}")
                  .get("stored")
                  .asBoolean())
          .isTrue();
    }

    @Test
    @DisplayName("changing types needs the right to write the agent's team memory")
    void changingTypesNeedsTeamWrites() {
      MemoryProvider provider = provider();
      ToolCall personalOnly =
          new ToolCall(
              AGENT,
              USER_1,
              "memory_create_type",
              "{\"key\":\"RECIPE\",\"name\":\"Recipe\"}",
              EnumSet.of(Scope.PERSONAL));

      assertThatThrownBy(() -> provider.callTool(personalOnly))
          .extracting(MemoryTypesContract::kindOf)
          .isEqualTo(ToolException.Kind.FORBIDDEN);
      tool(provider, USER_1, "memory_create_type", "{\"key\":\"RECIPE\",\"name\":\"Recipe\"}");
      assertThatThrownBy(
              () ->
                  provider.callTool(
                      new ToolCall(
                          AGENT, USER_1, "memory_delete_type", "{\"key\":\"RECIPE\"}", Set.of())))
          .extracting(MemoryTypesContract::kindOf)
          .isEqualTo(ToolException.Kind.FORBIDDEN);
      assertThat(keys(tool(provider, USER_1, "memory_list_types", "{}"))).contains("RECIPE");
    }

    @Test
    @DisplayName("custom types are kept with the store: a reopened provider has them")
    void customTypesSurviveReopening() {
      MemoryProvider first = provider();
      tool(first, USER_1, "memory_create_type", "{\"key\":\"RECIPE\",\"name\":\"Recipe\"}");
      tool(first, USER_1, "memory_create_type", "{\"key\":\"TRIP\",\"name\":\"Trip\"}");
      tool(first, USER_1, "memory_delete_type", "{\"key\":\"TRIP\"}");
      first.close();

      MemoryProvider reopened = provider();

      assertThat(keys(tool(reopened, USER_1, "memory_list_types", "{}")))
          .endsWith("RECIPE")
          .doesNotContain("TRIP");
    }

    @Test
    @DisplayName("erasing an owner leaves the agent's types")
    void erasingAnOwnerLeavesTypes() {
      MemoryProvider provider = provider();
      tool(provider, USER_1, "memory_create_type", "{\"key\":\"RECIPE\",\"name\":\"Recipe\"}");
      remember(provider, USER_1, "{\"text\":\"Pancakes need buttermilk\",\"type\":\"RECIPE\"}");

      provider.forget(USER_1);

      assertThat(keys(tool(provider, USER_2, "memory_list_types", "{}"))).contains("RECIPE");
    }
  }

  @Nested
  @DisplayName("Memory stats")
  class Stats {

    @Test
    @DisplayName("counts what the owner may see by type and status, never another owner's")
    void countsTheOwnersMemoriesByTypeAndStatus() {
      MemoryProvider provider = provider();
      tool(provider, USER_1, "memory_create_type", "{\"key\":\"RECIPE\",\"name\":\"Recipe\"}");
      remember(provider, USER_1, "{\"text\":\"My locker code is 4711\"}");
      remember(provider, USER_1, "{\"text\":\"I prefer green tea\",\"type\":\"preference\"}");
      String archived =
          remember(provider, USER_1, "{\"text\":\"Pancakes need buttermilk\",\"type\":\"RECIPE\"}")
              .get("id")
              .asString();
      tool(
          provider,
          USER_1,
          "update_memory_status",
          "{\"id\":\"" + archived + "\",\"status\":\"archived\"}");
      remember(
          provider,
          USER_1,
          "{\"text\":\"Deploys happen on Tuesdays\",\"type\":\"decision\",\"scope\":\"team\"}");
      // another owner's memories, and another agent's team memory
      remember(provider, USER_2, "{\"text\":\"My locker code is 1234\"}");
      remember(provider, USER_2, "{\"text\":\"I prefer black coffee\",\"type\":\"preference\"}");
      remember(provider, USER_2, "{\"text\":\"Waffles need eggs\",\"type\":\"RECIPE\"}");
      tool(
          provider,
          OTHER_AGENT,
          USER_1,
          "remember",
          "{\"text\":\"Their deploys happen on Fridays\",\"scope\":\"team\"}");
      provider.syncTurn(
          new Turn(
              "turn-" + ++turns,
              AGENT,
              USER_2,
              "conv-1",
              "I moved to Lisbon in May",
              "Lisbon, lovely.",
              TriggerSource.WEB,
              clock.instant()));

      JsonNode stats = tool(provider, USER_1, "memory_stats", "{}");

      assertThat(stats.get("total").asLong()).isEqualTo(4);
      assertThat(stats.get("byType").get("FACT").asLong()).isEqualTo(1);
      assertThat(stats.get("byType").get("PREFERENCE").asLong()).isEqualTo(1);
      assertThat(stats.get("byType").get("RECIPE").asLong()).isEqualTo(1);
      assertThat(stats.get("byType").get("DECISION").asLong()).isEqualTo(1);
      assertThat(stats.get("byType").get("RAW").asLong()).isZero();
      assertThat(stats.get("byStatus").get("active").asLong()).isEqualTo(3);
      assertThat(stats.get("byStatus").get("archived").asLong()).isEqualTo(1);
      assertThat(stats.get("byStatus").get("suppressed").asLong()).isZero();
      assertThat(stats.has("otherTypes")).isFalse();

      JsonNode theirs = tool(provider, USER_2, "memory_stats", "{}");
      assertThat(theirs.get("total").asLong()).isEqualTo(5); // 3 remembered, 1 turn, 1 team
      assertThat(theirs.get("byType").get("RAW").asLong()).isEqualTo(1);
      assertThat(theirs.get("byStatus").get("active").asLong()).isEqualTo(5);
    }

    @Test
    @DisplayName("counts memories of a deleted custom type under their type")
    void countsMemoriesOfADeletedType() {
      MemoryProvider provider = provider();
      tool(provider, USER_1, "memory_create_type", "{\"key\":\"RECIPE\",\"name\":\"Recipe\"}");
      remember(provider, USER_1, "{\"text\":\"Pancakes need buttermilk\",\"type\":\"RECIPE\"}");
      remember(provider, USER_1, "{\"text\":\"My locker code is 4711\"}");
      tool(provider, USER_1, "memory_delete_type", "{\"key\":\"RECIPE\"}");

      JsonNode stats = tool(provider, USER_1, "memory_stats", "{}");

      assertThat(stats.get("total").asLong()).isEqualTo(2);
      assertThat(stats.get("byType").get("FACT").asLong()).isEqualTo(1);
      assertThat(stats.get("byType").get("RECIPE").asLong()).isEqualTo(1);
    }
  }

  @Nested
  @DisplayName("Named memories")
  class Named {

    @Test
    @DisplayName("remember with a name updates that memory in place, and again is unchanged")
    void rememberWithANameUpdatesInPlace() {
      MemoryProvider provider = provider();
      JsonNode first =
          remember(
              provider,
              USER_1,
              "{\"text\":\"The favourite editor is Vim\",\"type\":\"preference\","
                  + "\"name\":\"Favourite editor\"}");
      String id = first.get("id").asString();
      assertThat(first.get("stored").asBoolean()).isTrue();
      assertThat(first.get("memory").get("name").asString()).isEqualTo("Favourite editor");

      JsonNode same =
          remember(
              provider,
              USER_1,
              "{\"text\":\"The favourite editor is Vim\",\"type\":\"PREFERENCE\","
                  + "\"name\":\"favourite  editor\"}");
      assertThat(same.get("stored").asBoolean()).isFalse();
      assertThat(same.get("unchanged").asBoolean()).isTrue();
      assertThat(same.get("id").asString()).isEqualTo(id);

      JsonNode changed =
          remember(
              provider,
              USER_1,
              "{\"text\":\"The favourite editor is Emacs\",\"type\":\"preference\","
                  + "\"name\":\"Favourite editor\"}");

      assertThat(changed.get("stored").asBoolean()).isTrue();
      assertThat(changed.get("updated").asBoolean()).isTrue();
      assertThat(changed.get("id").asString()).isEqualTo(id);
      assertThat(changed.get("previous").asString()).isEqualTo("The favourite editor is Vim");
      JsonNode memory = changed.get("memory");
      assertThat(memory.get("text").asString()).isEqualTo("The favourite editor is Emacs");
      assertThat(memory.get("createdAt").asString())
          .isEqualTo(first.get("memory").get("createdAt").asString());
      assertThat(memory.get("updatedAt").asString()).isEqualTo(clock.instant().toString());

      JsonNode listed = tool(provider, USER_1, "list_memories", "{}");
      assertThat(listed.get("total").asInt()).isEqualTo(1);
      assertThat(listed.get("items").get(0).get("text").asString())
          .isEqualTo("The favourite editor is Emacs");
      assertThat(listed.get("items").get(0).get("status").asString()).isEqualTo("active");
      JsonNode recalled = tool(provider, USER_1, "recall", "{\"query\":\"Emacs editor\"}");
      assertThat(recalled.get("items").get(0).get("id").asString()).isEqualTo(id);
      JsonNode oldWords = tool(provider, USER_1, "recall", "{\"query\":\"Vim\"}");
      assertThat(oldWords.get("items"))
          .allSatisfy(item -> assertThat(item.get("text").asString()).doesNotContain("Vim"));
    }

    @Test
    @DisplayName("another owner's memory of the same name is never touched")
    void anotherOwnersNamedMemoryIsUntouched() {
      MemoryProvider provider = provider();
      JsonNode theirs =
          remember(
              provider,
              USER_2,
              "{\"text\":\"The favourite editor is Nano\",\"name\":\"Favourite editor\"}");

      JsonNode mine =
          remember(
              provider,
              USER_1,
              "{\"text\":\"The favourite editor is Vim\",\"name\":\"Favourite editor\"}");
      remember(
          provider,
          USER_1,
          "{\"text\":\"The favourite editor is Emacs\",\"name\":\"Favourite editor\"}");

      assertThat(mine.get("id").asString()).isNotEqualTo(theirs.get("id").asString());
      assertThat(mine.get("stored").asBoolean()).isTrue();
      assertThat(mine.has("updated")).isFalse();
      JsonNode listed = tool(provider, USER_2, "list_memories", "{}");
      assertThat(listed.get("total").asInt()).isEqualTo(1);
      JsonNode item = listed.get("items").get(0);
      assertThat(item.get("text").asString()).isEqualTo("The favourite editor is Nano");
      assertThat(item.get("updatedAt").asString()).isEqualTo(item.get("createdAt").asString());
    }

    @Test
    @DisplayName("the same name in another type or scope is another memory")
    void theSameNameInAnotherTypeOrScopeIsAnotherMemory() {
      MemoryProvider provider = provider();
      String personal =
          remember(provider, USER_1, "{\"text\":\"Standup is at nine\",\"name\":\"Standup\"}")
              .get("id")
              .asString();
      String decision =
          remember(
                  provider,
                  USER_1,
                  "{\"text\":\"Standup moved to ten\",\"name\":\"Standup\",\"type\":\"decision\"}")
              .get("id")
              .asString();
      String team =
          remember(
                  provider,
                  USER_1,
                  "{\"text\":\"Standup is at half past nine\",\"name\":\"Standup\","
                      + "\"scope\":\"team\"}")
              .get("id")
              .asString();

      assertThat(Set.of(personal, decision, team)).hasSize(3);
      assertThat(tool(provider, USER_1, "list_memories", "{}").get("total").asInt()).isEqualTo(3);
    }

    @Test
    @DisplayName("an archived memory of the name is stored anew, active, with its earlier text")
    void anArchivedNamedMemoryIsStoredAnew() {
      MemoryProvider provider = provider();
      String id =
          remember(provider, USER_1, "{\"text\":\"Standup is at nine\",\"name\":\"Standup\"}")
              .get("id")
              .asString();
      tool(
          provider,
          USER_1,
          "update_memory_status",
          "{\"id\":\"" + id + "\",\"status\":\"archived\"}");

      JsonNode again =
          remember(provider, USER_1, "{\"text\":\"Standup is at ten\",\"name\":\"Standup\"}");

      assertThat(again.get("id").asString()).isEqualTo(id);
      assertThat(again.get("previous").asString()).isEqualTo("Standup is at nine");
      assertThat(again.get("previousStatus").asString()).isEqualTo("archived");
      assertThat(again.get("memory").get("status").asString()).isEqualTo("active");
    }

    @Test
    @DisplayName("refuses a name longer than 200 characters")
    void refusesALongName() {
      MemoryProvider provider = provider();

      assertThatThrownBy(
              () ->
                  remember(
                      provider,
                      USER_1,
                      "{\"text\":\"Standup is at nine\",\"name\":\"" + "n".repeat(201) + "\"}"))
          .extracting(e -> ((ToolException) e).field())
          .isEqualTo("name");
    }
  }
}
