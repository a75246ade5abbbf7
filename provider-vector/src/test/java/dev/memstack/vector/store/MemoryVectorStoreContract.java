package dev.memstack.vector.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.Embedder;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.Scope;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.filter.Filter;
import org.springframework.ai.vectorstore.filter.FilterExpressionTextParser;

/**
 * The contract every {@link MemoryVectorStore} keeps. A store's test extends this class and
 * implements {@link #factory()}; {@link #storeConfig()} gives its configuration keys (called once
 * per test, so it can name a fresh table). Each test gets a fresh data directory; a test may open
 * the store several times on the same directory/configuration (durability, model changes).
 */
public abstract class MemoryVectorStoreContract {

  protected static final AgentId AGENT = AgentId.of("agent-a");
  protected static final AgentId OTHER_AGENT = AgentId.of("agent-b");
  protected static final OwnerKey ALICE = OwnerKey.of("user:alice");
  protected static final OwnerKey BOB = OwnerKey.of("user:bob");
  protected static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");

  /** The store under test. */
  protected abstract MemoryVectorStoreFactory factory();

  /** The store's configuration keys for this test; empty by default. */
  protected Map<String, String> storeConfig() {
    return Map.of();
  }

  @TempDir protected Path dataDir;
  private Map<String, String> config;
  private final List<MemoryVectorStore> opened = new ArrayList<>();
  protected final SyntheticEmbedder embedder = new SyntheticEmbedder("synthetic-a", 32);

  @BeforeEach
  void configure() {
    config = storeConfig();
  }

  @AfterEach
  void closeStores() {
    for (MemoryVectorStore store : opened) {
      store.close();
    }
  }

  /** Opens the store of this test with {@code embedder}. */
  protected MemoryVectorStore open(Embedder with, boolean reembedOnMismatch) {
    StoreContext context =
        new StoreContext(
            "contract",
            ProviderConfig.of("memstack.providers.contract.config", config),
            dataDir,
            new StoreEmbedder(with, 16),
            reembedOnMismatch,
            Clock.systemUTC());
    MemoryVectorStore store = factory().open(context);
    opened.add(store);
    return store;
  }

  protected MemoryVectorStore open() {
    return open(embedder, false);
  }

  protected static MemoryRecord personal(String id, OwnerKey owner, String text, Instant at) {
    return new MemoryRecord(
        id,
        text,
        AGENT,
        owner,
        Scope.PERSONAL,
        MemoryStatus.ACTIVE,
        "RAW",
        "c1",
        "t-" + id,
        at,
        Map.of("role", "user"));
  }

  protected static MemoryRecord shared(String id, AgentId agent, Scope scope, String text) {
    return new MemoryRecord(
        id, text, agent, null, scope, MemoryStatus.ACTIVE, "FACT", null, null, T0, Map.of());
  }

  private static List<Document> docs(MemoryRecord... records) {
    List<Document> out = new ArrayList<>();
    for (MemoryRecord r : records) {
      out.add(r.toDocument());
    }
    return out;
  }

  private static Filter.Expression parse(String text) {
    return new FilterExpressionTextParser().parse(text);
  }

  private static List<String> ids(List<Document> documents) {
    return documents.stream().map(Document::getId).toList();
  }

  @Nested
  @DisplayName("Writing and reading")
  class WritingAndReading {

    @Test
    @DisplayName("returns a document with its text, every metadata key and the model id")
    void returnsADocumentWithItsTextMetadataAndModel() {
      MemoryVectorStore store = open();
      store.add(docs(personal("r1", ALICE, "[2026-03-02] user: I adopted a greyhound", T0)));

      Document doc = store.get("r1").orElseThrow();
      assertThat(doc.getText()).isEqualTo("[2026-03-02] user: I adopted a greyhound");
      assertThat(doc.getMetadata())
          .containsEntry(MemoryVectorStore.AGENT, "agent-a")
          .containsEntry(MemoryVectorStore.OWNER, "user:alice")
          .containsEntry(MemoryVectorStore.SCOPE, "PERSONAL")
          .containsEntry(MemoryVectorStore.STATUS, "ACTIVE")
          .containsEntry(MemoryVectorStore.TYPE, "RAW")
          .containsEntry(MemoryVectorStore.CONVERSATION, "c1")
          .containsEntry(MemoryVectorStore.TURN, "t-r1")
          .containsEntry(MemoryVectorStore.CREATED_AT, T0.toEpochMilli())
          .containsEntry(MemoryVectorStore.MODEL, "synthetic-a")
          .containsEntry("role", "user");
      assertThat(MemoryRecord.fromDocument(doc))
          .isEqualTo(personal("r1", ALICE, "[2026-03-02] user: I adopted a greyhound", T0));
      assertThat(store.get("missing")).isEmpty();
    }

    @Test
    @DisplayName("adds by id: the same id twice keeps one document with the newer text")
    void addsById() {
      MemoryVectorStore store = open();
      store.add(docs(personal("r1", ALICE, "first text", T0)));
      store.add(docs(personal("r1", ALICE, "second text", T0)));

      assertThat(store.count(null)).isEqualTo(1);
      assertThat(store.get("r1").orElseThrow().getText()).isEqualTo("second text");
    }

    @Test
    @DisplayName("rejects a document without the required metadata, naming the key")
    void rejectsADocumentWithoutRequiredMetadata() {
      MemoryVectorStore store = open();
      Document noAgent =
          Document.builder()
              .id("x")
              .text("text")
              .metadata(
                  Map.of("scope", "TEAM", "status", "ACTIVE", "type", "FACT", "created_at", 1L))
              .build();

      assertThatThrownBy(() -> store.add(List.of(noAgent)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("agent");
      assertThat(store.count(null)).isZero();
    }

    @Test
    @DisplayName("hands out the stored vectors of live records, unit length, by id")
    void handsOutStoredVectors() {
      MemoryVectorStore store = open();
      store.add(docs(personal("r1", ALICE, "one", T0), personal("r2", ALICE, "two", T0)));
      store.delete(List.of("r2"));

      Map<String, float[]> vectors = store.vectors(List.of("r1", "r2", "nope"));

      assertThat(vectors).containsOnlyKeys("r1");
      float[] vector = vectors.get("r1");
      assertThat(vector).hasSize(embedder.dimension());
      double norm = 0;
      for (float v : vector) {
        norm += v * v;
      }
      assertThat(norm).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-4));
      // it is the vector the store searches with: the record finds itself at cosine 1
      List<Document> nearest = store.vectorSearch(vector, null, 1, 0.0);
      assertThat(ids(nearest)).containsExactly("r1");
      assertThat(nearest.get(0).getScore())
          .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-4));
      assertThat(store.vectors(List.of())).isEmpty();
    }

    @Test
    @DisplayName("tells which ids exist")
    void tellsWhichIdsExist() {
      MemoryVectorStore store = open();
      store.add(docs(personal("r1", ALICE, "one", T0), personal("r2", ALICE, "two", T0)));

      assertThat(store.existingIds(List.of("r1", "nope", "r2")))
          .containsExactlyInAnyOrder("r1", "r2");
      assertThat(store.existingIds(List.of())).isEmpty();
    }

    @Test
    @DisplayName("lists newest first, in pages, and counts within a filter")
    void listsNewestFirstInPages() {
      MemoryVectorStore store = open();
      List<MemoryRecord> records = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        records.add(personal("r" + i, ALICE, "note " + i, T0.plusSeconds(60L * i)));
      }
      records.add(personal("b0", BOB, "bob's note", T0.plusSeconds(3600)));
      store.add(docs(records.toArray(MemoryRecord[]::new)));

      Filter.Expression alice = MemoryFilters.ofOwner(ALICE);
      assertThat(store.count(alice)).isEqualTo(7);
      assertThat(ids(store.list(alice, 0, 3))).containsExactly("r6", "r5", "r4");
      assertThat(ids(store.list(alice, 3, 3))).containsExactly("r3", "r2", "r1");
      assertThat(ids(store.list(alice, 6, 3))).containsExactly("r0");
      assertThat(store.list(alice, 7, 3)).isEmpty();
      assertThat(ids(store.list(null, 0, 1))).containsExactly("b0");
    }

    @Test
    @DisplayName(
        "lists and counts every record that holds a word of a text, newest first, and by value")
    void listsAndCountsByTextAndByValue() {
      MemoryVectorStore store = open();
      List<MemoryRecord> records = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        String text = i % 2 == 0 ? "my greyhound ran " + i + " laps" : "tea number " + i;
        records.add(personal("r" + i, ALICE, text, T0.plusSeconds(i)));
      }
      records.add(personal("b0", BOB, "bob's greyhound", T0.plusSeconds(9)));
      records.add(shared("t0", AGENT, Scope.TEAM, "the team greyhound"));
      store.add(docs(records.toArray(MemoryRecord[]::new)));
      store.updateMetadata("r2", Map.of(MemoryVectorStore.STATUS, MemoryStatus.ARCHIVED.name()));

      Filter.Expression alice = MemoryFilters.ofOwner(ALICE);
      assertThat(ids(store.list(alice, "greyhounds", 0, 10))).containsExactly("r4", "r2", "r0");
      assertThat(ids(store.list(alice, "greyhounds", 1, 1))).containsExactly("r2");
      assertThat(store.count(alice, "greyhounds")).isEqualTo(3);
      assertThat(store.count(alice, "greyhound tea")).as("any word").isEqualTo(6);
      assertThat(store.count(alice, null)).isEqualTo(6);
      assertThat(ids(store.list(alice, null, 0, 2))).containsExactly("r5", "r4");
      assertThat(store.list(alice, "the and", 0, 10)).as("stop words only").isEmpty();
      assertThat(store.count(alice, "the and")).isZero();
      Filter.Expression visible = MemoryFilters.visibleTo(AGENT, ALICE);
      assertThat(ids(store.list(visible, "greyhound", 0, 10)))
          .containsExactlyInAnyOrder("r4", "r2", "r0", "t0");

      assertThat(store.countBy(MemoryVectorStore.STATUS, alice, null))
          .isEqualTo(Map.of("ACTIVE", 5L, "ARCHIVED", 1L));
      assertThat(store.countBy(MemoryVectorStore.STATUS, alice, "greyhound"))
          .isEqualTo(Map.of("ACTIVE", 2L, "ARCHIVED", 1L));
      assertThat(store.countBy(MemoryVectorStore.SCOPE, visible, "greyhound"))
          .isEqualTo(Map.of("PERSONAL", 3L, "TEAM", 1L));
      assertThat(store.countBy(MemoryVectorStore.TYPE, alice, "nothing-like-this")).isEmpty();
      assertThatThrownBy(() -> store.countBy(MemoryVectorStore.CREATED_AT, alice, null))
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("lists records of the same time by id, and any page of them the same way")
    void listsRecordsOfTheSameTimeById() {
      MemoryVectorStore store = open();
      List<MemoryRecord> records = new ArrayList<>();
      for (String id : List.of("r-c", "r-a", "r-e", "r-b", "r-d")) {
        records.add(personal(id, ALICE, "note " + id, T0));
      }
      records.add(personal("r-new", ALICE, "the newest", T0.plusSeconds(1)));
      records.add(personal("r-old", ALICE, "the oldest", T0.minusSeconds(1)));
      store.add(docs(records.toArray(MemoryRecord[]::new)));

      Filter.Expression alice = MemoryFilters.ofOwner(ALICE);
      assertThat(ids(store.list(alice, 0, 10)))
          .containsExactly("r-new", "r-a", "r-b", "r-c", "r-d", "r-e", "r-old");
      assertThat(ids(store.list(alice, 2, 3))).containsExactly("r-b", "r-c", "r-d");
      assertThat(ids(store.list(alice, 6, 3))).containsExactly("r-old");
    }

    @Test
    @DisplayName("lists an agent's owners in key order with their counts, paged and filtered")
    void listsOwnersWithCounts() {
      MemoryVectorStore store = open();
      OwnerKey carol = OwnerKey.of("api:Carol_1");
      OwnerKey percent = OwnerKey.of("api:50%_off");
      List<MemoryRecord> records = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        records.add(personal("a" + i, ALICE, "alice " + i, T0.plusSeconds(i)));
      }
      records.add(personal("b0", BOB, "bob", T0));
      records.add(personal("c0", carol, "carol", T0));
      records.add(personal("p0", percent, "percent", T0));
      // another agent's owner, and shared records, are none of this agent's owners
      records.add(
          new MemoryRecord(
              "x0",
              "elsewhere",
              OTHER_AGENT,
              OwnerKey.of("user:zed"),
              Scope.PERSONAL,
              MemoryStatus.ACTIVE,
              "RAW",
              null,
              null,
              T0,
              Map.of()));
      records.add(shared("t0", AGENT, Scope.TEAM, "team note"));
      store.add(docs(records.toArray(MemoryRecord[]::new)));
      // a deleted record no longer counts, an archived one still does
      store.delete(List.of("a2"));
      store.updateMetadata("a1", Map.of(MemoryVectorStore.STATUS, MemoryStatus.ARCHIVED.name()));

      MemoryVectorStore.OwnerPage all = store.owners(AGENT.value(), null, null, 0, 10);
      assertThat(all.total()).isEqualTo(4);
      assertThat(all.owners())
          .containsExactly(
              new MemoryVectorStore.OwnerCount("api:50%_off", 1),
              new MemoryVectorStore.OwnerCount("api:Carol_1", 1),
              new MemoryVectorStore.OwnerCount("user:alice", 2),
              new MemoryVectorStore.OwnerCount("user:bob", 1));

      MemoryVectorStore.OwnerPage second = store.owners(AGENT.value(), null, null, 1, 2);
      assertThat(second.total()).isEqualTo(4);
      assertThat(second.owners())
          .extracting(MemoryVectorStore.OwnerCount::owner)
          .containsExactly("api:Carol_1", "user:alice");
      MemoryVectorStore.OwnerPage past = store.owners(AGENT.value(), null, null, 9, 2);
      assertThat(past.total()).isEqualTo(4);
      assertThat(past.owners()).isEmpty();

      assertThat(store.owners(AGENT.value(), "user:", null, 0, 10).owners())
          .extracting(MemoryVectorStore.OwnerCount::owner)
          .containsExactly("user:alice", "user:bob");
      assertThat(store.owners(AGENT.value(), null, "CAROL", 0, 10).owners())
          .extracting(MemoryVectorStore.OwnerCount::owner)
          .containsExactly("api:Carol_1");
      // LIKE wildcards in a prefix are plain characters
      assertThat(store.owners(AGENT.value(), "api:50%", null, 0, 10).total()).isEqualTo(1);
      assertThat(store.owners(AGENT.value(), "api:5_", null, 0, 10).total()).isZero();
      assertThat(store.owners(AGENT.value(), "api:", "o", 0, 10).total()).isEqualTo(2);
      assertThat(store.owners(OTHER_AGENT.value(), null, null, 0, 10).owners())
          .containsExactly(new MemoryVectorStore.OwnerCount("user:zed", 1));
      assertThat(store.owners("nobody", null, null, 0, 10).total()).isZero();
    }

    @Test
    @DisplayName("changes status in place and keeps the vector")
    void changesStatusInPlace() {
      MemoryVectorStore store = open();
      store.add(docs(personal("r1", ALICE, "greyhound named Biscuit", T0)));

      assertThat(store.updateMetadata("r1", Map.of(MemoryVectorStore.STATUS, "ARCHIVED"))).isTrue();
      assertThat(store.updateMetadata("nope", Map.of(MemoryVectorStore.STATUS, "ARCHIVED")))
          .isFalse();

      Document doc = store.get("r1").orElseThrow();
      assertThat(doc.getMetadata()).containsEntry(MemoryVectorStore.STATUS, "ARCHIVED");
      assertThat(doc.getMetadata()).containsEntry(MemoryVectorStore.CREATED_AT, T0.toEpochMilli());
      assertThat(store.count(parse("status == 'ARCHIVED'"))).isEqualTo(1);
      assertThat(store.count(parse("status == 'ACTIVE'"))).isZero();
      List<Document> hits =
          store.vectorSearch(embedder.vector("greyhound named Biscuit"), null, 1, 0.99);
      assertThat(ids(hits)).containsExactly("r1");
      assertThatThrownBy(() -> store.updateMetadata("r1", Map.of(MemoryVectorStore.CREATED_AT, 5L)))
          .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("deletes by id and by filter")
    void deletesByIdAndByFilter() {
      MemoryVectorStore store = open();
      store.add(
          docs(
              personal("a1", ALICE, "one", T0),
              personal("a2", ALICE, "two", T0),
              personal("b1", BOB, "three", T0),
              shared("t1", AGENT, Scope.TEAM, "team note")));

      store.delete(List.of("a1"));
      assertThat(store.existingIds(List.of("a1", "a2"))).containsExactly("a2");

      store.delete(MemoryFilters.ofOwner(ALICE));
      assertThat(store.existingIds(List.of("a2", "b1", "t1")))
          .containsExactlyInAnyOrder("b1", "t1");
    }
  }

  @Nested
  @DisplayName("Filters")
  class Filters {

    private MemoryVectorStore store;

    @BeforeEach
    void fill() {
      store = open();
      MemoryRecord archived =
          new MemoryRecord(
              "a3",
              "archived note",
              AGENT,
              ALICE,
              Scope.PERSONAL,
              MemoryStatus.ARCHIVED,
              "PREFERENCE",
              "c2",
              null,
              T0.plusSeconds(7200),
              Map.of());
      store.add(
          docs(
              personal("a1", ALICE, "alice one", T0),
              personal("a2", ALICE, "alice two", T0.plusSeconds(3600)),
              archived,
              personal("b1", BOB, "bob one", T0),
              shared("t1", AGENT, Scope.TEAM, "team of a"),
              shared("t2", OTHER_AGENT, Scope.TEAM, "team of b"),
              shared("g1", OTHER_AGENT, Scope.GLOBAL, "global")));
    }

    private Set<String> matching(Filter.Expression filter) {
      return store.list(filter, 0, 100).stream().map(Document::getId).collect(Collectors.toSet());
    }

    @Test
    @DisplayName("EQ, NE, IN and NIN on keyword fields")
    void keywordOperators() {
      assertThat(matching(parse("owner == 'user:alice'"))).containsOnly("a1", "a2", "a3");
      assertThat(matching(parse("type IN ['PREFERENCE', 'FACT']")))
          .containsOnly("a3", "t1", "t2", "g1");
      assertThat(matching(parse("scope NIN ['PERSONAL']"))).containsOnly("t1", "t2", "g1");
      assertThat(matching(parse("id == 'b1'"))).containsOnly("b1");
      assertThat(matching(parse("id IN ['b1', 'g1', 'zz']"))).containsOnly("b1", "g1");
    }

    @Test
    @DisplayName("NE and NIN also match records that lack the key")
    void negationsMatchMissingKeys() {
      assertThat(matching(parse("owner != 'user:alice'"))).containsOnly("b1", "t1", "t2", "g1");
      assertThat(matching(parse("conversation NIN ['c1']"))).containsOnly("a3", "t1", "t2", "g1");
    }

    @Test
    @DisplayName("AND, OR, NOT and groups")
    void booleanOperators() {
      assertThat(matching(parse("owner == 'user:alice' && status == 'ACTIVE'")))
          .containsOnly("a1", "a2");
      assertThat(matching(parse("owner == 'user:bob' || scope == 'GLOBAL'")))
          .containsOnly("b1", "g1");
      Filter.Expression notPersonal =
          new Filter.Expression(Filter.ExpressionType.NOT, parse("scope == 'PERSONAL'"));
      assertThat(matching(MemoryFilters.and(notPersonal, parse("agent == 'agent-a'"))))
          .containsOnly("t1");
      assertThat(matching(parse("NOT(scope == 'PERSONAL')"))).containsOnly("t1", "t2", "g1");
      assertThat(matching(parse("(owner == 'user:bob' || scope == 'TEAM') && agent == 'agent-a'")))
          .containsOnly("b1", "t1");
    }

    @Test
    @DisplayName("ISNULL and ISNOTNULL")
    void nullChecks() {
      assertThat(matching(parse("owner IS NULL"))).containsOnly("t1", "t2", "g1");
      assertThat(matching(parse("turn IS NOT NULL"))).containsOnly("a1", "a2", "b1");
    }

    @Test
    @DisplayName("time ranges on created_at, in millis or ISO text")
    void timeRanges() {
      long t0 = T0.toEpochMilli();
      assertThat(matching(parse("created_at > " + t0 + "L"))).containsOnly("a2", "a3");
      assertThat(
              matching(
                  parse(
                      "created_at >= "
                          + (t0 + 3_600_000L)
                          + "L && created_at < "
                          + (t0 + 7_200_000L)
                          + "L")))
          .containsOnly("a2");
      assertThat(matching(MemoryFilters.createdBefore(T0.plusSeconds(1)))).hasSize(5);
      assertThat(
              matching(
                  new Filter.Expression(
                      Filter.ExpressionType.LTE,
                      new Filter.Key(MemoryVectorStore.CREATED_AT),
                      new Filter.Value("2026-03-02T10:00:00Z"))))
          .containsOnly("a1", "b1", "t1", "t2", "g1");
    }

    @Test
    @DisplayName("what an owner may see of an agent: own personal records, team, global")
    void visibility() {
      assertThat(matching(MemoryFilters.visibleTo(AGENT, ALICE)))
          .containsOnly("a1", "a2", "a3", "t1", "g1");
      assertThat(matching(MemoryFilters.visibleTo(AGENT, null))).containsOnly("t1", "g1");
      assertThat(matching(MemoryFilters.visibleTo(OTHER_AGENT, ALICE))).containsOnly("t2", "g1");
    }

    @Test
    @DisplayName("rejects a key that cannot be filtered on, naming it")
    void rejectsUnknownKeys() {
      assertThatThrownBy(() -> store.count(parse("role == 'user'")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("role");
    }
  }

  @Nested
  @DisplayName("Searching")
  class Searching {

    @Test
    @DisplayName("vector search returns cosine similarity, best first, cut at the threshold")
    void vectorSearchReturnsCosineSimilarity() {
      MemoryVectorStore store = open();
      store.add(
          docs(
              personal("r1", ALICE, "alpha", T0),
              personal("r2", ALICE, "beta", T0),
              personal("r3", ALICE, "gamma", T0)));

      List<Document> hits = store.vectorSearch(embedder.vector("beta"), null, 3, -1);
      assertThat(ids(hits)).hasSize(3).first().isEqualTo("r2");
      assertThat(hits.get(0).getScore()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-4));
      for (int i = 1; i < hits.size(); i++) {
        assertThat(hits.get(i).getScore()).isLessThanOrEqualTo(hits.get(i - 1).getScore());
        float[] a = StoreEmbedder.normalized(embedder.vector("beta"));
        float[] b = StoreEmbedder.normalized(embedder.vector(hits.get(i).getText()));
        assertThat(hits.get(i).getScore())
            .isCloseTo(StoreEmbedder.dot(a, b), org.assertj.core.data.Offset.offset(1e-3));
      }
      assertThat(ids(store.vectorSearch(embedder.vector("beta"), null, 3, 0.99)))
          .containsExactly("r2");
    }

    @Test
    @DisplayName("similaritySearch embeds the query and applies the request's filter")
    void similaritySearchAppliesTheFilter() {
      MemoryVectorStore store = open();
      store.add(
          docs(personal("a1", ALICE, "same words", T0), personal("b1", BOB, "same words", T0)));

      List<Document> hits =
          store.similaritySearch(
              SearchRequest.builder()
                  .query("same words")
                  .topK(5)
                  .similarityThresholdAll()
                  .filterExpression("owner == 'user:bob'")
                  .build());
      assertThat(ids(hits)).containsExactly("b1");
    }

    @Test
    @DisplayName("keyword search finds rare words within the filter only")
    void keywordSearchFindsRareWordsWithinTheFilter() {
      MemoryVectorStore store = open();
      store.add(
          docs(
              personal("a1", ALICE, "[2026-03-02] user: my greyhound Biscuit loves walks", T0),
              personal("a2", ALICE, "[2026-03-02] user: the weather is grey", T0),
              personal("b1", BOB, "[2026-03-02] user: Biscuit is my cat", T0)));

      List<Document> hits = store.keywordSearch("Biscuit", MemoryFilters.ofOwner(ALICE), 5);
      assertThat(ids(hits)).containsExactly("a1");
      assertThat(hits.get(0).getScore()).isPositive();
      assertThat(store.keywordSearch("the", null, 5)).isEmpty();
      assertThat(store.keywordSearch("", null, 5)).isEmpty();
    }

    @Test
    @DisplayName("filtered top-k equals exact search on a multi-owner data set")
    void filteredTopKEqualsExactSearch() {
      MemoryVectorStore store = open();
      int owners = 30;
      SplittableRandom random = new SplittableRandom(7);
      Map<String, float[]> vectors = new HashMap<>();
      Map<String, MemoryRecord> records = new HashMap<>();
      List<Document> batch = new ArrayList<>();
      int n = 0;
      for (int o = 0; o < owners; o++) {
        // owner 0 is large, so its filter is not small; the others hold 20-80 records each
        int size = o == 0 ? 1500 : 20 + random.nextInt(60);
        for (int i = 0; i < size; i++) {
          String id = "o" + o + "-" + i;
          MemoryRecord r =
              personal(id, OwnerKey.of("user:" + o), "memory " + id, T0.plusSeconds(n++));
          records.put(id, r);
          vectors.put(id, StoreEmbedder.normalized(embedder.vector(r.text())));
          batch.add(r.toDocument());
        }
      }
      for (int t = 0; t < 40; t++) {
        MemoryRecord r =
            shared("team-" + t, AGENT, t % 2 == 0 ? Scope.TEAM : Scope.GLOBAL, "shared " + t);
        records.put(r.id(), r);
        vectors.put(r.id(), StoreEmbedder.normalized(embedder.vector(r.text())));
        batch.add(r.toDocument());
      }
      for (int from = 0; from < batch.size(); from += 500) {
        store.add(batch.subList(from, Math.min(batch.size(), from + 500)));
      }

      int queries = 0;
      int exactMatches = 0;
      double largeOwnerRecall = 0;
      int largeOwnerQueries = 0;
      for (int o = 0; o < owners; o++) {
        OwnerKey owner = OwnerKey.of("user:" + o);
        Filter.Expression filter = MemoryFilters.visibleTo(AGENT, owner);
        for (int q = 0; q < 5; q++) {
          float[] query = embedder.vector("query " + o + "/" + q);
          float[] unit = StoreEmbedder.normalized(query);
          List<String> exact =
              records.values().stream()
                  .filter(r -> r.scope() != Scope.PERSONAL || r.owner().equals(owner))
                  .sorted(
                      Comparator.comparingDouble(
                              (MemoryRecord r) -> StoreEmbedder.dot(unit, vectors.get(r.id())))
                          .reversed())
                  .limit(10)
                  .map(MemoryRecord::id)
                  .toList();
          List<String> found = ids(store.vectorSearch(query, filter, 10, -1));
          queries++;
          if (o == 0) {
            largeOwnerQueries++;
            largeOwnerRecall +=
                found.stream().filter(exact::contains).count() / (double) exact.size();
          } else {
            assertThat(found).as("top-10 of owner %s, query %d", o, q).isEqualTo(exact);
            exactMatches++;
          }
        }
      }
      assertThat(exactMatches).isEqualTo(queries - largeOwnerQueries);
      assertThat(largeOwnerRecall / largeOwnerQueries)
          .as("recall@10 within the large owner's records")
          .isGreaterThanOrEqualTo(0.9);
    }
  }

  @Nested
  @DisplayName("Feedback counts")
  class FeedbackCounts {

    /** Dots, slashes, quotes and a backslash: characters a key or path syntax could trip on. */
    private static final OwnerKey ODD_OWNER = OwnerKey.of("telegram:4711.x/y\"z\\'{}");

    @Test
    @DisplayName("count per owner and record, ignoring unknown ids and an id given twice")
    void countPerOwnerAndRecord() {
      MemoryVectorStore store = open();
      store.add(
          docs(
              personal("a1", ALICE, "alice's note", T0),
              shared("t1", AGENT, Scope.TEAM, "team note"),
              shared("g1", AGENT, Scope.GLOBAL, "global note")));

      assertThat(store.addFeedback(ALICE, List.of("a1", "t1", "missing", "t1"))).isEqualTo(2);
      assertThat(store.addFeedback(ALICE, List.of("t1"))).isOne();
      assertThat(store.addFeedback(BOB, List.of("g1"))).isOne();
      assertThat(store.addFeedback(BOB, List.of())).isZero();
      assertThat(store.addFeedback(BOB, List.of("missing"))).isZero();

      assertThat(store.feedback(ALICE, List.of("a1", "t1", "g1", "missing")))
          .containsExactlyInAnyOrderEntriesOf(Map.of("a1", 1L, "t1", 2L));
      assertThat(store.feedback(BOB, List.of("a1", "t1", "g1")))
          .containsExactlyInAnyOrderEntriesOf(Map.of("g1", 1L));
      assertThat(store.feedback(OwnerKey.of("user:nobody"), List.of("t1"))).isEmpty();
      assertThat(store.feedback(ALICE, List.of())).isEmpty();
    }

    @Test
    @DisplayName("are kept apart from the records: no document carries an owner's count")
    void areKeptApartFromTheRecords() {
      MemoryVectorStore store = open();
      store.add(docs(shared("t1", AGENT, Scope.TEAM, "team note")));
      store.addFeedback(ALICE, List.of("t1"));
      store.addFeedback(ODD_OWNER, List.of("t1"));

      Map<String, Object> metadata = store.get("t1").orElseThrow().getMetadata();
      assertThat(metadata.keySet()).noneMatch(key -> key.contains("feedback"));
      assertThat(metadata.values()).noneMatch(value -> value.toString().contains("alice"));
      assertThat(store.feedback(ODD_OWNER, List.of("t1"))).containsEntry("t1", 1L);
    }

    @Test
    @DisplayName("increments atomically: concurrent feedback adds up")
    void incrementsAtomically() throws Exception {
      MemoryVectorStore store = open();
      store.add(
          docs(
              shared("t1", AGENT, Scope.TEAM, "team note"),
              shared("t2", AGENT, Scope.TEAM, "other note")));
      int threads = 6;
      int calls = 20;
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(threads);
      try {
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          // ids in both orders, so that locking them in call order could deadlock
          List<String> ids = t % 2 == 0 ? List.of("t1", "t2") : List.of("t2", "t1");
          done.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < calls; i++) {
                      assertThat(store.addFeedback(ALICE, ids)).isEqualTo(2);
                    }
                  }));
        }
        for (java.util.concurrent.Future<?> f : done) {
          f.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }

      assertThat(store.feedback(ALICE, List.of("t1", "t2")))
          .containsExactlyInAnyOrderEntriesOf(
              Map.of("t1", (long) threads * calls, "t2", (long) threads * calls));
    }

    @Test
    @DisplayName("survive an upsert of the record and a reopen, and go with a deleted record")
    void surviveUpsertAndReopenAndGoWithTheRecord() {
      MemoryVectorStore first = open();
      first.add(
          docs(
              personal("a1", ALICE, "alice's note", T0),
              shared("t1", AGENT, Scope.TEAM, "team note"),
              shared("t2", AGENT, Scope.TEAM, "another team note")));
      first.addFeedback(ALICE, List.of("a1", "t1", "t2"));
      first.addFeedback(BOB, List.of("t1"));
      first.add(docs(shared("t1", AGENT, Scope.TEAM, "team note, edited")));
      first.updateMetadata("t2", Map.of(MemoryVectorStore.STATUS, "ARCHIVED"));
      assertThat(first.feedback(ALICE, List.of("t1", "t2")))
          .as("after an upsert and a status change")
          .containsExactlyInAnyOrderEntriesOf(Map.of("t1", 1L, "t2", 1L));
      first.delete(List.of("t2"));
      first.close();

      MemoryVectorStore second = open();
      assertThat(second.feedback(ALICE, List.of("a1", "t1", "t2")))
          .containsExactlyInAnyOrderEntriesOf(Map.of("a1", 1L, "t1", 1L));
      assertThat(second.feedback(BOB, List.of("t1"))).containsEntry("t1", 1L);

      // a record stored again under a deleted id starts without the old counts
      second.add(docs(shared("t2", AGENT, Scope.TEAM, "another team note")));
      assertThat(second.feedback(ALICE, List.of("t2"))).isEmpty();
      second.delete(MemoryFilters.ofOwner(ALICE));
      second.add(docs(personal("a1", ALICE, "alice's note", T0)));
      assertThat(second.feedback(ALICE, List.of("a1", "t1")))
          .containsExactlyInAnyOrderEntriesOf(Map.of("t1", 1L));
    }

    @Test
    @DisplayName("deleteFeedback erases one owner's counts and nobody else's, durably")
    void deleteFeedbackErasesOneOwner() {
      MemoryVectorStore first = open();
      first.add(
          docs(
              personal("a1", ALICE, "alice's note", T0),
              shared("t1", AGENT, Scope.TEAM, "team note")));
      first.addFeedback(ALICE, List.of("a1", "t1"));
      first.addFeedback(BOB, List.of("t1"));

      assertThat(first.deleteFeedback(ALICE)).isEqualTo(2);
      assertThat(first.deleteFeedback(ALICE)).isZero();
      assertThat(first.feedback(ALICE, List.of("a1", "t1"))).isEmpty();
      assertThat(first.existingIds(List.of("a1", "t1"))).hasSize(2);
      first.close();

      MemoryVectorStore second = open();
      assertThat(second.feedback(ALICE, List.of("a1", "t1"))).isEmpty();
      assertThat(second.feedback(BOB, List.of("t1"))).containsEntry("t1", 1L);
    }

    @Test
    @DisplayName("counts feedback for records of a batch that searches do not see yet")
    void countsFeedbackForABatchNotYetVisible() {
      MemoryVectorStore store = open();
      store.addBatch(docs(shared("t1", AGENT, Scope.TEAM, "team note")));

      assertThat(store.addFeedback(ALICE, List.of("t1"))).isOne();
      assertThat(store.feedback(ALICE, List.of("t1"))).containsEntry("t1", 1L);
    }
  }

  @Nested
  @DisplayName("Trust rows")
  class TrustRows {

    private static final java.time.Duration HALF_LIFE = java.time.Duration.ofDays(60);

    private TrustChange used(Instant at) {
      return TrustChange.used(at, HALF_LIFE);
    }

    private TrustChange wrong(Instant at) {
      return TrustChange.wrong(at, HALF_LIFE);
    }

    @Test
    @DisplayName("move both ways per owner and record, ignoring unknown ids and an id given twice")
    void moveBothWaysPerOwner() {
      MemoryVectorStore store = open();
      store.add(
          docs(
              personal("a1", ALICE, "alice's note", T0),
              shared("t1", AGENT, Scope.TEAM, "team note")));

      Map<String, Trust> changed = store.addTrust(ALICE, List.of("t1", "missing", "t1"), wrong(T0));
      assertThat(changed).containsOnlyKeys("t1");
      assertThat(changed.get("t1")).isEqualTo(new Trust(0, 1, -0.5, T0.toEpochMilli(), false));
      assertThat(store.addTrust(ALICE, List.of("t1", "a1"), used(T0)))
          .containsEntry("t1", new Trust(1, 1, -0.25, T0.toEpochMilli(), false))
          .containsEntry("a1", new Trust(1, 0, 0.25, T0.toEpochMilli(), false));
      assertThat(store.addTrust(BOB, List.of(), wrong(T0))).isEmpty();

      assertThat(store.trust(ALICE, List.of("a1", "t1", "missing"))).containsOnlyKeys("a1", "t1");
      assertThat(store.trust(BOB, List.of("a1", "t1"))).isEmpty();
      assertThat(store.feedback(ALICE, List.of("a1", "t1")))
          .containsExactlyInAnyOrderEntriesOf(Map.of("a1", 1L, "t1", 1L));
    }

    @Test
    @DisplayName("fade with the half-life, and stay within the limit")
    void fadeWithTheHalfLife() {
      MemoryVectorStore store = open();
      store.add(docs(shared("t1", AGENT, Scope.TEAM, "team note")));
      store.addTrust(ALICE, List.of("t1"), wrong(T0));
      store.addTrust(ALICE, List.of("t1"), wrong(T0));

      Trust row =
          store.addTrust(ALICE, List.of("t1"), used(T0.plus(HALF_LIFE))).get("t1"); // -1 → -0.5
      assertThat(row.sum()).isCloseTo(-0.25, org.assertj.core.api.Assertions.within(1e-9));
      assertThat(row.at()).isEqualTo(T0.plus(HALF_LIFE).toEpochMilli());
      assertThat(row.value(T0.plus(HALF_LIFE.multipliedBy(2)).toEpochMilli(), HALF_LIFE))
          .isCloseTo(Math.tanh(-0.125), org.assertj.core.api.Assertions.within(1e-9));
      // a change dated before the row's time fades nothing and keeps the later time
      Trust early = store.addTrust(ALICE, List.of("t1"), used(T0)).get("t1");
      assertThat(early.sum()).isCloseTo(0.0, org.assertj.core.api.Assertions.within(1e-9));
      assertThat(early.at()).isEqualTo(T0.plus(HALF_LIFE).toEpochMilli());

      for (int i = 0; i < 40; i++) {
        store.addTrust(BOB, List.of("t1"), used(T0));
      }
      assertThat(store.trust(BOB, List.of("t1")).get("t1").sum()).isEqualTo(Trust.LIMIT);
      // long after, nothing is left
      Map<String, Trust> late =
          store.addTrust(BOB, List.of("t1"), wrong(T0.plus(HALF_LIFE.multipliedBy(100))));
      assertThat(late.get("t1").sum()).isEqualTo(-0.5);
    }

    @Test
    @DisplayName("hide a record from one owner, durably, and deleteFeedback erases the row")
    void hideOneOwnerDurably() {
      MemoryVectorStore first = open();
      first.add(docs(shared("t1", AGENT, Scope.TEAM, "team note")));
      assertThat(first.hide(ALICE, "t1", true)).isFalse();
      first.addTrust(ALICE, List.of("t1"), wrong(T0));
      first.addTrust(BOB, List.of("t1"), wrong(T0));

      assertThat(first.hide(ALICE, "t1", true)).isTrue();
      assertThat(first.trust(ALICE, List.of("t1")).get("t1").hidden()).isTrue();
      assertThat(first.trust(BOB, List.of("t1")).get("t1").hidden()).isFalse();
      // a change keeps the row hidden
      assertThat(first.addTrust(ALICE, List.of("t1"), wrong(T0)).get("t1").hidden()).isTrue();
      first.close();

      MemoryVectorStore second = open();
      assertThat(second.trust(ALICE, List.of("t1")).get("t1"))
          .isEqualTo(new Trust(0, 2, -1.0, T0.toEpochMilli(), true));
      assertThat(second.deleteFeedback(ALICE)).isOne();
      assertThat(second.trust(ALICE, List.of("t1"))).isEmpty();
      second.close();

      MemoryVectorStore third = open();
      assertThat(third.trust(ALICE, List.of("t1"))).isEmpty();
      assertThat(third.trust(BOB, List.of("t1"))).containsKey("t1");
    }

    @Test
    @DisplayName("show a hidden record again to its owner, durably, its wrong count from zero")
    void showAHiddenRecordAgain() {
      MemoryVectorStore first = open();
      first.add(docs(shared("t1", AGENT, Scope.TEAM, "team note")));
      first.addTrust(ALICE, List.of("t1"), wrong(T0));
      first.addTrust(ALICE, List.of("t1"), wrong(T0));
      first.addTrust(BOB, List.of("t1"), wrong(T0));
      first.hide(ALICE, "t1", true);
      first.hide(BOB, "t1", true);

      assertThat(first.hide(ALICE, "t1", false)).isTrue();
      first.close();

      MemoryVectorStore second = open();
      Trust alice = second.trust(ALICE, List.of("t1")).get("t1");
      assertThat(alice.hidden()).isFalse();
      assertThat(alice.wrongs()).isZero();
      assertThat(alice.sum()).isEqualTo(-1.0);
      // only alice's row changed
      assertThat(second.trust(BOB, List.of("t1")).get("t1").hidden()).isTrue();
      assertThat(second.hide(ALICE, "t2", false)).isFalse();
    }

    @Test
    @DisplayName("change atomically: concurrent wrongs and uses add up")
    void changeAtomically() throws Exception {
      MemoryVectorStore store = open();
      store.add(
          docs(
              shared("t1", AGENT, Scope.TEAM, "team note"),
              shared("t2", AGENT, Scope.TEAM, "other note")));
      int threads = 6;
      int calls = 10;
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(threads);
      try {
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          List<String> ids = t % 2 == 0 ? List.of("t1", "t2") : List.of("t2", "t1");
          TrustChange change = t % 2 == 0 ? wrong(T0) : used(T0);
          done.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < calls; i++) {
                      assertThat(store.addTrust(ALICE, ids, change)).hasSize(2);
                    }
                  }));
        }
        for (java.util.concurrent.Future<?> f : done) {
          f.get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }

      Trust row = store.trust(ALICE, List.of("t1")).get("t1");
      assertThat(row.wrongs()).isEqualTo(30);
      assertThat(row.uses()).isEqualTo(30);
      // the sum depends on the order of the changes (it is clamped at each step), not the counts
      assertThat(row.sum()).isBetween(-Trust.LIMIT, Trust.LIMIT);
    }
  }

  @Nested
  @DisplayName("Durability and models")
  class DurabilityAndModels {

    @Test
    @DisplayName("keeps every acknowledged write across close and reopen")
    void keepsWritesAcrossReopen() {
      MemoryVectorStore first = open();
      first.add(docs(personal("r1", ALICE, "persist me", T0), personal("r2", BOB, "and me", T0)));
      first.updateMetadata("r2", Map.of(MemoryVectorStore.STATUS, "SUPPRESSED"));
      first.delete(List.of("r1"));
      first.add(docs(personal("r3", ALICE, "third", T0)));
      first.close();

      MemoryVectorStore second = open();
      assertThat(second.count(null)).isEqualTo(2);
      assertThat(second.get("r2").orElseThrow().getMetadata())
          .containsEntry(MemoryVectorStore.STATUS, "SUPPRESSED");
      assertThat(ids(second.vectorSearch(embedder.vector("third"), null, 1, 0.99)))
          .containsExactly("r3");
      assertThat(second.info()).isEqualTo(new MemoryVectorStore.StoreInfo("synthetic-a", 32, 2));
    }

    @Test
    @DisplayName("refuses another embedding model, saying which and how to re-embed")
    void refusesAnotherModel() {
      MemoryVectorStore first = open();
      first.add(docs(personal("r1", ALICE, "some memory", T0)));
      first.close();

      SyntheticEmbedder other = new SyntheticEmbedder("synthetic-b", 48);
      assertThatThrownBy(() -> open(other, false))
          .isInstanceOf(ModelMismatchException.class)
          .hasMessageContaining("synthetic-a")
          .hasMessageContaining("synthetic-b")
          .hasMessageContaining("memstack.providers.contract.config.reembed=true");
      // the refused open changed nothing
      MemoryVectorStore again = open();
      assertThat(again.get("r1")).isPresent();
    }

    @Test
    @DisplayName("re-embeds every record with the new model when asked, keeping metadata")
    void reembedsWithTheNewModel() {
      MemoryVectorStore first = open();
      first.add(docs(personal("r1", ALICE, "first memory", T0), personal("r2", BOB, "second", T0)));
      first.updateMetadata("r2", Map.of(MemoryVectorStore.STATUS, "ARCHIVED"));
      first.close();

      SyntheticEmbedder other = new SyntheticEmbedder("synthetic-b", 48);
      MemoryVectorStore second = open(other, true);
      assertThat(other.embeddedTexts()).isEqualTo(2);
      assertThat(second.info()).isEqualTo(new MemoryVectorStore.StoreInfo("synthetic-b", 48, 2));
      List<Document> hits = second.vectorSearch(other.vector("second"), null, 1, 0.99);
      assertThat(ids(hits)).containsExactly("r2");
      assertThat(hits.get(0).getMetadata())
          .containsEntry(MemoryVectorStore.STATUS, "ARCHIVED")
          .containsEntry(MemoryVectorStore.MODEL, "synthetic-b")
          .containsEntry(MemoryVectorStore.OWNER, "user:bob");
      second.close();

      // the new model is now the recorded one; the old one is refused
      assertThat(open(other, false).count(null)).isEqualTo(2);
    }

    @Test
    @DisplayName("embeds a record with its context line, when written and when re-embedded")
    void embedsWithTheContextLine() {
      MemoryVectorStore first = open();
      MemoryRecord record =
          personal("r1", ALICE, "[2026-03-02] user: Yes, twice!", T0)
              .withExtra(MemoryRecord.CONTEXT, "Have you been to Turks and Caicos?");
      first.add(docs(record));
      String embedded = "Have you been to Turks and Caicos?\n[2026-03-02] user: Yes, twice!";
      assertThat(ids(first.vectorSearch(embedder.vector(embedded), null, 1, 0.999)))
          .containsExactly("r1");
      first.close();

      SyntheticEmbedder other = new SyntheticEmbedder("synthetic-b", 48);
      MemoryVectorStore second = open(other, true);
      assertThat(ids(second.vectorSearch(other.vector(embedded), null, 1, 0.999)))
          .containsExactly("r1");
      assertThat(second.get("r1").orElseThrow().getText())
          .isEqualTo("[2026-03-02] user: Yes, twice!");
    }

    @Test
    @DisplayName("an empty store adopts a new model without complaint")
    void anEmptyStoreAdoptsANewModel() {
      open().close();
      SyntheticEmbedder other = new SyntheticEmbedder("synthetic-b", 48);
      MemoryVectorStore store = open(other, false);
      store.add(docs(personal("r1", ALICE, "hello", T0)));
      assertThat(store.info().modelId()).isEqualTo("synthetic-b");
      assertThat(store.info().dimension()).isEqualTo(48);
    }

    @Test
    @DisplayName("reembed() rebuilds the vectors in place and reports how many")
    void reembedRebuildsInPlace() {
      MemoryVectorStore store = open();
      store.add(docs(personal("r1", ALICE, "one", T0), personal("r2", ALICE, "two", T0)));
      long before = embedder.embeddedTexts();

      assertThat(store.reembed()).isEqualTo(2);
      assertThat(embedder.embeddedTexts() - before).isEqualTo(2);
      assertThat(ids(store.vectorSearch(embedder.vector("two"), null, 1, 0.99)))
          .containsExactly("r2");
      Optional<Document> one = store.get("r1");
      assertThat(one).isPresent();
    }
  }
}
