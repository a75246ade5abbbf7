package dev.memstack.builtin.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.builtin.BuiltinMemoryProviderFactory;
import dev.memstack.builtin.store.ConversationBuffer;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.LanguageModel;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.spi.ProviderHealth;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.ToolCall;
import dev.memstack.spi.ToolException;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.tck.HeldLanguageModel;
import dev.memstack.tck.MutableClock;
import dev.memstack.tck.TestProviderContext;
import dev.memstack.testing.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The builtin provider in shared mode: two providers on one database stand for two hosts; what one
 * writes the other reads, recalls and shows in its prompt blocks at once, and erasing an owner on
 * one leaves no row of the owner in any table.
 */
@DisplayName("builtin on PostgreSQL (shared mode)")
class SharedWorkspaceTest {

  static final AgentId AGENT = AgentId.of("a1");
  static final OwnerKey ALICE = OwnerKey.of("user:alice");
  static final OwnerKey BOB = OwnerKey.of("user:bob");
  static final JsonMapper JSON = JsonMapper.builder().build();

  @TempDir Path dir;
  TestPostgres db;
  String schema;
  final MutableClock clock = MutableClock.at(Instant.parse("2026-04-01T09:30:00Z"));
  final List<MemoryProvider> open = new ArrayList<>();
  final List<TestProviderContext> contexts = new ArrayList<>();

  @BeforeEach
  void database() {
    db = TestPostgres.fromEnvironment();
    schema = BuiltinPostgres.schema(db);
  }

  @AfterEach
  void close() {
    open.forEach(MemoryProvider::close);
    if (db != null) {
      db.dropSchema(schema);
    }
  }

  /** A provider of a host in shared mode with {@code config} (plus the test schema). */
  MemoryProvider host(String name, Map<String, String> config) {
    return host(name, config, null);
  }

  /** As {@link #host(String, Map)}, with {@code model} as its chat model when not null. */
  MemoryProvider host(String name, Map<String, String> config, LanguageModel model) {
    Map<String, String> values = new java.util.HashMap<>(config);
    values.putIfAbsent("schema", schema);
    TestProviderContext.Builder builder =
        TestProviderContext.builder()
            .instanceId("builtin")
            .config(values)
            .dataDir(dir.resolve(name))
            .clock(clock);
    if (model != null) {
      builder.languageModel(model);
    }
    TestProviderContext context = builder.build();
    contexts.add(context);
    MemoryProvider provider =
        new BuiltinMemoryProviderFactory()
            .create(new SharedModeContext(context, BuiltinPostgres.shared(db)));
    open.add(provider);
    return provider;
  }

  MemoryProvider host(String name) {
    return host(name, Map.of());
  }

  static String tool(MemoryProvider provider, OwnerKey owner, String name, String json) {
    return provider.callTool(new ToolCall(AGENT, owner, name, json));
  }

  static List<RecallItem> recall(MemoryProvider provider, OwnerKey owner, String query) {
    return provider
        .prefetch(new RecallRequest(AGENT, owner, "c1", query, 10, Instant.now().plusSeconds(10)))
        .items();
  }

  @Test
  @DisplayName("in shared mode an unset store is postgres: nothing lands in the data directory")
  void sharedModeDefaultsToPostgres() throws Exception {
    MemoryProvider a = host("a");
    tool(
        a,
        null,
        "write_workspace_memory_file",
        "{\"scope\":\"team\",\"filename\":\"notes/harbour.md\",\"content\":\"The ferry leaves at"
            + " nine.\"}");
    assertThat(db.count("SELECT count(*) FROM " + schema + ".builtin_files")).isGreaterThan(4);
    try (Stream<Path> files = Files.walk(dir.resolve("a"))) {
      assertThat(files.filter(p -> p.toString().endsWith(".md")).toList()).isEmpty();
    }
  }

  @Test
  @DisplayName("health is UP with the database and DOWN, naming it, once it is gone")
  void healthFollowsTheDatabase() {
    String scratch = "memstack_scratch_" + Long.toHexString(System.nanoTime());
    db.execute("CREATE DATABASE " + scratch);
    try {
      String url = db.url().replaceFirst("/[^/?]+(\\?|$)", "/" + scratch + "$1");
      Map<String, String> config = new java.util.HashMap<>(BuiltinPostgres.config(db, schema));
      config.put("jdbc-url", url);
      MemoryProvider provider = host("scratch", config);
      assertThat(provider.health().status()).isEqualTo(ProviderHealth.Status.UP);
      db.execute("DROP DATABASE " + scratch + " WITH (FORCE)");
      ProviderHealth health = provider.health();
      assertThat(health.status()).isEqualTo(ProviderHealth.Status.DOWN);
      assertThat(health.detail()).contains("builtin store at").contains(scratch);
    } finally {
      db.execute("DROP DATABASE IF EXISTS " + scratch + " WITH (FORCE)");
    }
  }

  @Test
  @DisplayName("store=files in shared mode stops the start and names the key")
  void filesAreRefusedInSharedMode() {
    assertThatThrownBy(() -> host("a", Map.of("store", "files")))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("memstack.providers.builtin.config.store")
        .hasMessageContaining("shared mode");
  }

  @Test
  @DisplayName("a keyword outside postgres is refused with its key")
  void postgresKeysNeedPostgres() {
    TestProviderContext context =
        TestProviderContext.builder()
            .instanceId("builtin")
            .config(Map.of("table-prefix", "x_"))
            .dataDir(dir.resolve("plain"))
            .build();
    assertThatThrownBy(() -> new BuiltinMemoryProviderFactory().create(context))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("memstack.providers.builtin.config.table-prefix");
  }

  @Test
  @DisplayName("a write on host A is in host B's system prompt, owner block and recall at once")
  void writesAreSeenByTheOtherHost() {
    MemoryProvider a = host("a");
    MemoryProvider b = host("b");
    String before = b.systemPromptBlock(AGENT);
    String ownerBefore = b.ownerPromptBlock(AGENT, ALICE);
    assertThat(recall(b, ALICE, "lighthouse")).isEmpty();

    tool(
        a,
        null,
        "edit_workspace_memory_file",
        "{\"scope\":\"team\",\"filename\":\"MEMORY.md\",\"oldText\":\"## Decisions\","
            + "\"newText\":\"- The release train leaves on Thursdays.\\n\\n## Decisions\"}");
    tool(
        a,
        ALICE,
        "write_workspace_memory_file",
        "{\"scope\":\"personal\",\"filename\":\"PROFILE.md\",\"content\":\"# Profile\\nAlice"
            + " sails a red dinghy.\"}");
    a.syncTurn(
        new Turn(
            "t1",
            AGENT,
            ALICE,
            "c1",
            "The lighthouse keeper is called Morwenna.",
            "Noted.",
            TriggerSource.WEB,
            clock.instant()));

    assertThat(b.systemPromptBlock(AGENT))
        .isNotEqualTo(before)
        .contains("The release train leaves on Thursdays.");
    assertThat(b.ownerPromptBlock(AGENT, ALICE))
        .isNotEqualTo(ownerBefore)
        .contains("Alice sails a red dinghy.");
    assertThat(recall(b, ALICE, "lighthouse keeper"))
        .extracting(RecallItem::text)
        .anySatisfy(text -> assertThat(text).contains("Morwenna"));
    assertThat(recall(b, BOB, "lighthouse keeper")).isEmpty();
  }

  @Test
  @DisplayName("a file rewritten on A within the same millisecond is still read anew on B")
  void sameMillisecondRewritesAreSeen() {
    MemoryProvider a = host("a");
    MemoryProvider b = host("b");
    String write =
        "{\"scope\":\"team\",\"filename\":\"SOUL.md\",\"content\":\"%s\"}"; // same size each time
    tool(a, null, "write_workspace_memory_file", write.formatted("Voice: calm, brief. v1"));
    assertThat(b.systemPromptBlock(AGENT)).contains("v1");
    tool(a, null, "write_workspace_memory_file", write.formatted("Voice: calm, brief. v2"));
    assertThat(b.systemPromptBlock(AGENT)).contains("v2").doesNotContain("v1");
  }

  @Test
  @DisplayName("host B tells its host's prompt cache about a change made on host A")
  void theWatcherTellsTheHost() throws Exception {
    MemoryProvider a = host("a");
    host("b", Map.of("prompt-poll-interval", "50ms"));
    TestProviderContext bContext = contexts.get(1);
    a.systemPromptBlock(AGENT);
    Thread.sleep(200);
    bContext.clearSystemPromptChanges();
    tool(
        a,
        null,
        "write_workspace_memory_file",
        "{\"scope\":\"team\",\"filename\":\"SOUL.md\",\"content\":\"Voice: warm.\"}");
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (!bContext.systemPromptChangedFor(AGENT) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(bContext.systemPromptChangedFor(AGENT)).isTrue();
  }

  @Test
  @DisplayName(
      "an entry edited on A reads with its history on B, where the updatedAt read before is stale")
  void memoryItemsAreShared() {
    MemoryProvider a = host("a");
    MemoryProvider b = host("b");
    tool(
        a,
        ALICE,
        "write_workspace_memory_file",
        "{\"scope\":\"personal\",\"filename\":\"MEMORY.md\",\"content\":\"## Boats\\n"
            + "- Alice sails the Skerry.\\n- The mooring is at pier 4.\\n\"}");
    JsonNode read =
        JSON.readTree(tool(b, ALICE, "list_memories", "{\"text\":\"Skerry\"}")).get("items").get(0);
    String id = read.get("id").asString();
    String stale = read.get("updatedAt").asString();

    JsonNode edited =
        JSON.readTree(
            tool(
                a,
                ALICE,
                "edit_memory",
                "{\"id\":\""
                    + id
                    + "\",\"text\":\"Alice sails the Fulmar.\",\"updatedAt\":\""
                    + stale
                    + "\"}"));

    String history = tool(b, ALICE, "memory_history", "{\"id\":\"" + id + "\"}");
    assertThat(history).contains("\"updated\"").contains("Alice sails the Skerry.");
    assertThat(
            JSON.readTree(tool(b, ALICE, "get_memory", "{\"id\":\"" + id + "\"}"))
                .get("text")
                .asString())
        .isEqualTo("Alice sails the Fulmar.");
    String pier =
        JSON.readTree(tool(b, ALICE, "list_memories", "{\"text\":\"pier\"}"))
            .get("items")
            .get(0)
            .get("id")
            .asString();
    assertThatThrownBy(
            () ->
                tool(
                    b,
                    ALICE,
                    "edit_memory",
                    "{\"id\":\""
                        + pier
                        + "\",\"text\":\"The mooring is at pier 5.\",\"updatedAt\":\""
                        + stale
                        + "\"}"))
        .isInstanceOfSatisfying(
            ToolException.class, e -> assertThat(e.kind()).isEqualTo(ToolException.Kind.CONFLICT));
    assertThat(edited.get("id").asString()).isNotEqualTo(id);
    String chunks = "SELECT count(*) FROM " + schema + ".builtin_chunks WHERE owner = 'user:alice'";
    assertThat(db.count(chunks + " AND path = 'MEMORY.md'")).isPositive();
    assertThat(db.count(chunks + " AND path LIKE 'history/%'"))
        .as("history rows are kept out of keyword search")
        .isZero();
    assertThat(
            db.count(
                "SELECT count(*) FROM " + schema + ".builtin_files WHERE path LIKE 'history/%'"))
        .as("the history is rows of the files table")
        .isPositive();
  }

  @Test
  @DisplayName("the conversation buffer is shared: the host taking over an owner sees every turn")
  void conversationBufferIsShared() throws Exception {
    MemoryProvider a = host("a");
    MemoryProvider b = host("b");
    a.syncTurn(
        new Turn(
            "t1",
            AGENT,
            ALICE,
            "c1",
            "I sail on Sundays.",
            "Noted.",
            TriggerSource.WEB,
            clock.instant()));
    // host a fails; host b takes the owner over and gets the next turn
    b.syncTurn(
        new Turn(
            "t2",
            AGENT,
            ALICE,
            "c1",
            "My boat is the Skerry.",
            "Noted.",
            TriggerSource.WEB,
            clock.instant()));

    ConversationBuffer.Conversation seen = conversations(b).read(AGENT, ALICE, "c1");
    assertThat(seen.totalMessages()).isEqualTo(4);
    assertThat(seen.messages())
        .extracting(ConversationBuffer.Message::text)
        .contains("I sail on Sundays.", "My boat is the Skerry.");
    assertThat(conversations(a).read(AGENT, ALICE, "c1")).isEqualTo(seen);
    assertThat(conversations(b)).isInstanceOf(PgConversationBuffer.class);
    assertThat(dir.resolve("a").resolve("conversations")).doesNotExist();
    assertThat(dir.resolve("b").resolve("conversations")).doesNotExist();
  }

  private static ConversationBuffer conversations(MemoryProvider provider) throws Exception {
    var field = provider.getClass().getDeclaredField("conversations");
    field.setAccessible(true);
    return (ConversationBuffer) field.get(provider);
  }

  @Test
  @DisplayName("forgetting an owner on one host leaves no row of the owner and no dead row behind")
  void erasureLeavesNoRow() {
    MemoryProvider a = host("a");
    MemoryProvider b = host("b");
    for (OwnerKey owner : List.of(ALICE, BOB)) {
      a.syncTurn(
          new Turn(
              "t-" + owner.value(),
              AGENT,
              owner,
              "c1",
              "My locker code is 4711 and my cat is Quince.",
              "Noted.",
              TriggerSource.WEB,
              clock.instant()));
      tool(
          a,
          owner,
          "write_workspace_memory_file",
          "{\"scope\":\"personal\",\"filename\":\"MEMORY.md\",\"content\":\"Quince likes"
              + " herring.\"}");
    }
    assertThat(rowsOf(ALICE)).isPositive();

    long removed = b.forget(ALICE);

    // the daily note, MEMORY.md and the conversation c1
    assertThat(removed).isEqualTo(3);
    assertThat(rowsOf(ALICE)).isZero();
    assertThat(rowsOf(BOB)).isPositive();
    assertThat(
            db.count(
                "SELECT count(*) FROM "
                    + schema
                    + ".builtin_conversations WHERE owner = 'user:bob'"))
        .isEqualTo(1);
    // A connection reports its statistics up to a second late, so the delete's count of dead rows
    // can land after the vacuum and count rows that are gone; so the test waits for the reports and
    // counts the dead rows on the pages themselves (ANALYZE), after checking that each table was
    // vacuumed.
    try {
      Thread.sleep(1500);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (String table :
        List.of("builtin_buckets", "builtin_files", "builtin_chunks", "builtin_conversations")) {
      assertThat(
              db.count(
                  "SELECT coalesce(sum(vacuum_count), 0) FROM pg_stat_user_tables WHERE"
                      + " schemaname = '"
                      + schema
                      + "' AND relname = '"
                      + table
                      + "'"))
          .as("vacuums of %s", table)
          .isPositive();
      db.execute("ANALYZE " + schema + "." + table);
      assertThat(
              db.count(
                  "SELECT count(*) FROM "
                      + schema
                      + "."
                      + table
                      + " t WHERE t::text LIKE '%user:alice%'"))
          .as("rows of %s that mention the owner anywhere", table)
          .isZero();
      // the statistics are reported a moment late, and a vacuum cannot remove rows that a
      // snapshot of another test on the same database still sees: ask again for a few seconds,
      // vacuuming again, before calling it a trace
      String dead =
          "SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables WHERE schemaname = '"
              + schema
              + "' AND relname = '"
              + table
              + "'";
      // (a whole module's tests share the server: on a busy CI machine another test's transaction
      // can hold its snapshot for many seconds, hence the long deadline; a pass takes none of it)
      // The count asserted is the one the loop ended on: asked again, a report that arrived in
      // between (another row's update, counted late) could turn a clean table's 0 into a count
      long until = System.nanoTime() + java.time.Duration.ofSeconds(90).toNanos();
      long deadRows = db.count(dead);
      while (deadRows > 0 && System.nanoTime() < until) {
        try {
          Thread.sleep(500);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
        db.execute("VACUUM " + schema + "." + table);
        deadRows = db.count(dead);
      }
      assertThat(deadRows)
          .as("dead rows of %s after the vacuum; sessions holding them: %s", table, holders())
          .isZero();
    }
    for (String host : List.of("a", "b")) {
      assertThat(dir.resolve(host).resolve("conversations"))
          .as("conversation files on host %s", host)
          .doesNotExist();
    }
    assertThat(recall(a, ALICE, "Quince herring")).isEmpty();
    assertThat(recall(a, BOB, "Quince herring")).isNotEmpty();
  }

  @Test
  @DisplayName(
      "an extraction on host A whose owner host B erases while the model works writes nothing")
  void anErasureOnAnotherHostHoldsAgainstAJobUnderWay() throws Exception {
    HeldLanguageModel held =
        HeldLanguageModel.answering(
            "{\"should_update\": true, \"reason\": \"a cat\", \"daily_entry\":"
                + " \"- The cat Quince likes herring.\", \"memory_update\": \"- Cat: Quince\"}");
    MemoryProvider a = host("a", Map.of("auto-summarize-enabled", "false"), held);
    MemoryProvider b = host("b");
    for (String text : List.of("My cat is Quince.", "Quince likes herring.")) {
      a.syncTurn(
          new Turn(
              java.util.UUID.randomUUID().toString(),
              AGENT,
              ALICE,
              "c1",
              text,
              "Noted.",
              TriggerSource.WEB,
              clock.instant()));
    }
    assertThat(rowsOf(ALICE)).isPositive();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      java.util.concurrent.Future<String> job =
          pool.submit(
              () -> tool(a, ALICE, "summarize_conversation", "{\"conversationId\":\"c1\"}"));
      assertThat(held.awaitHeldCall(Duration.ofSeconds(10))).isTrue();
      assertThat(b.forget(ALICE)).isPositive();
      held.release();
      JsonNode answer =
          JsonMapper.builder().build().readTree(job.get(10, java.util.concurrent.TimeUnit.SECONDS));
      assertThat(answer.get("status").asString()).isEqualTo("erased");
    } finally {
      held.release();
      pool.shutdownNow();
    }
    assertThat(rowsOf(ALICE)).isZero();
  }

  /**
   * The other sessions that keep dead rows from a vacuum: an open snapshot, or a transaction that
   * wrote and is still open (it holds an id even without a snapshot).
   */
  private String holders() {
    try (java.sql.Connection connection = db.connect();
        java.sql.Statement statement = connection.createStatement();
        java.sql.ResultSet rows =
            statement.executeQuery(
                "SELECT pid, datname, application_name, state, xact_start, backend_xid,"
                    + " backend_xmin, left(query, 120) FROM pg_stat_activity WHERE pid <>"
                    + " pg_backend_pid() AND (backend_xid IS NOT NULL OR backend_xmin IS NOT"
                    + " NULL)")) {
      List<String> out = new java.util.ArrayList<>();
      while (rows.next()) {
        List<String> row = new java.util.ArrayList<>();
        for (int c = 1; c <= 8; c++) {
          row.add(String.valueOf(rows.getObject(c)));
        }
        out.add(String.join(" | ", row));
      }
      return out.isEmpty() ? "none" : String.join("; ", out);
    } catch (java.sql.SQLException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  @Test
  @DisplayName("a snapshot exported on host A imports into another agent on host B")
  void snapshotsGoThroughTheStore() throws Exception {
    MemoryProvider a = host("a");
    MemoryProvider b = host("b");
    tool(
        a,
        null,
        "write_workspace_memory_file",
        "{\"scope\":\"team\",\"filename\":\"KNOWLEDGE.md\",\"content\":\"# Knowledge\\n记忆快照\"}");
    tool(
        a,
        null,
        "write_workspace_memory_file",
        "{\"scope\":\"team\",\"filename\":\"scratch.md\",\"content\":\"not in snapshots\"}");
    String exported = tool(a, null, "export_workspace_memory", "{}");
    String zip =
        tools.jackson.databind.json.JsonMapper.builder()
            .build()
            .readTree(exported)
            .path("zipBase64")
            .asString();
    String applied =
        b.callTool(
            new ToolCall(
                AgentId.of("b2"),
                null,
                "import_workspace_memory",
                "{\"zipBase64\":\"" + zip + "\",\"preview\":false}"));
    assertThat(applied).contains("\"applied\":true");
    String read =
        a.callTool(
            new ToolCall(
                AgentId.of("b2"),
                null,
                "read_workspace_memory_file",
                "{\"scope\":\"team\",\"filename\":\"KNOWLEDGE.md\"}"));
    assertThat(read).contains("记忆快照");
    assertThat(
            db.count(
                "SELECT count(*) FROM "
                    + schema
                    + ".builtin_files WHERE bucket = 'team:b2' AND path = 'scratch.md'"))
        .isZero();
  }

  private long rowsOf(OwnerKey owner) {
    long rows = 0;
    for (String table :
        List.of("builtin_buckets", "builtin_files", "builtin_chunks", "builtin_conversations")) {
      rows +=
          db.count(
              "SELECT count(*) FROM "
                  + schema
                  + "."
                  + table
                  + " WHERE owner = '"
                  + owner.value()
                  + "'");
    }
    return rows;
  }
}
