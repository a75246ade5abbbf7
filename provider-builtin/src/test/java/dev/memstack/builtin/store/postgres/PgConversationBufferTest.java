package dev.memstack.builtin.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.store.ConversationBuffer;
import dev.memstack.builtin.store.ConversationBufferConformance;
import dev.memstack.testing.TestPostgres;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The conversation buffer of {@code store=postgres}: rows of {@code builtin_conversations}; every
 * buffer opened here has its own pool, as a host of its own would.
 */
@DisplayName("PgConversationBuffer")
class PgConversationBufferTest extends ConversationBufferConformance {

  TestPostgres db;
  String schema;
  final List<PgWorkspaceDatabase> opened = new ArrayList<>();

  @BeforeEach
  void database() {
    db = TestPostgres.fromEnvironment();
    schema = BuiltinPostgres.schema(db);
  }

  @AfterEach
  void close() {
    opened.forEach(PgWorkspaceDatabase::close);
    if (db != null) {
      db.dropSchema(schema);
    }
  }

  @Override
  protected ConversationBuffer open(int maxMessages, int messageMaxChars) {
    PgWorkspaceDatabase database = PgWorkspaceDatabase.open(BuiltinPostgres.settings(db, schema));
    opened.add(database);
    return new PgConversationBuffer(database, maxMessages, messageMaxChars);
  }

  @Override
  protected boolean sharedAcrossInstances() {
    return true;
  }

  @Override
  protected long storedCopies(String text) {
    return db.count(
        "SELECT count(*) FROM "
            + schema
            + ".builtin_conversations c WHERE c::text LIKE '%"
            + text.replace("'", "''")
            + "%'");
  }

  @Test
  @DisplayName("a message appended through one host is read through another")
  void twoHostsShareTheBuffer() {
    ConversationBuffer a = open(10, 100);
    ConversationBuffer b = open(10, 100);
    a.append(turn("t1", ALICE, "The lighthouse keeper is Morwenna."));
    assertThat(b.read(A1, ALICE, "c1").messages()).hasSize(2);
    b.append(turn("t2", ALICE, "Her boat is the Skerry."));
    assertThat(a.read(A1, ALICE, "c1").totalMessages()).isEqualTo(4);
    // a turn kept through one host is not added again through the other
    assertThat(b.append(turn("t1", ALICE, "The lighthouse keeper is Morwenna.")).totalMessages())
        .isEqualTo(4);
  }

  @Test
  @DisplayName("the conversation id is stored only as its hash; erasure leaves no dead row")
  void erasureVacuums() {
    ConversationBuffer buffer = open(10, 100);
    buffer.append(turn("t1", A1, ALICE, "secret-conversation-id", "hello"));
    buffer.append(turn("t2", A1, BOB, "c1", "hello"));
    assertThat(storedCopies("secret-conversation-id")).isZero();
    assertThat(
            db.count(
                "SELECT count(*) FROM "
                    + schema
                    + ".builtin_conversations WHERE conversation = '"
                    + ConversationBuffer.key("secret-conversation-id")
                    + "'"))
        .isEqualTo(1);

    buffer.forget(ALICE);

    assertThat(db.count("SELECT count(*) FROM " + schema + ".builtin_conversations")).isEqualTo(1);
    assertThat(
            db.count(
                "SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables WHERE schemaname"
                    + " = '"
                    + schema
                    + "' AND relname = 'builtin_conversations'"))
        .as("dead rows after the vacuum")
        .isZero();
    assertThat(
            db.count(
                "SELECT vacuum_count FROM pg_stat_user_tables WHERE schemaname = '"
                    + schema
                    + "' AND relname = 'builtin_conversations'"))
        .isPositive();
  }

  @Test
  @DisplayName("the conversations table is schema step 2 of the builtin component")
  void schemaStep() {
    open(10, 100);
    open(10, 100); // a second host finds the step applied
    assertThat(
            db.count(
                "SELECT count(*) FROM "
                    + schema
                    + ".memstack_schema WHERE version = 2 AND component = 'builtin:"
                    + schema
                    + ".builtin_'"))
        .isEqualTo(1);
  }

  @Test
  @DisplayName("a database at schema version 1 gets the conversations table at the next start")
  void upgradeFromVersionOne() {
    // a database as the previous release left it: step 1 applied, no conversations table
    open(10, 100);
    opened.forEach(PgWorkspaceDatabase::close);
    opened.clear();
    db.execute("DROP TABLE " + schema + ".builtin_conversations");
    db.execute("DROP TABLE " + schema + ".builtin_erasures");
    db.execute("DELETE FROM " + schema + ".memstack_schema WHERE version >= 2");

    ConversationBuffer upgraded = open(10, 100);

    assertThat(upgraded.append(turn("t1", ALICE, "after the upgrade")).totalMessages())
        .isEqualTo(2);
    assertThat(
            db.count(
                "SELECT count(*) FROM "
                    + schema
                    + ".memstack_schema WHERE component = 'builtin:"
                    + schema
                    + ".builtin_'"))
        .as("steps 1, 2 and 3")
        .isEqualTo(3);
  }
}
