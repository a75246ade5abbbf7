package dev.memstack.host.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memstack.host.shared.SharedProperties;
import dev.memstack.host.shared.SharedStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shared-mode log on PostgreSQL ({@code MEMSTACK_PG_URL}; skipped without it, failed on CI):
 * the conformance tests, each in a schema of its own, two logs standing for two hosts.
 */
class PostgresConversationLogTest extends ConversationLogConformance {

  private String url;
  private String user;
  private String password;
  private String schema;
  private final List<SharedStore> stores = new ArrayList<>();

  @BeforeEach
  void database() {
    url = System.getenv("MEMSTACK_PG_URL");
    if (url == null || url.isBlank()) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("MEMSTACK_PG_URL is not set on CI (CI=true)");
      }
      Assumptions.abort("MEMSTACK_PG_URL is not set; skipping the PostgreSQL conversation log");
    }
    user = blankToNull(System.getenv("MEMSTACK_PG_USER"));
    password = blankToNull(System.getenv("MEMSTACK_PG_PASSWORD"));
    schema = "t_conv_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    execute("CREATE SCHEMA " + schema);
  }

  @AfterEach
  void drop() {
    stores.forEach(SharedStore::close);
    if (schema != null) {
      execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  private SharedStore store() {
    String scoped = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    SharedStore store =
        new SharedStore(new SharedProperties(scoped, user, password, 4, Duration.ofSeconds(5)));
    stores.add(store);
    return store;
  }

  @Override
  protected ConversationLog open(int maxTurns, int maxMessageChars) {
    return new PostgresConversationLog(store(), new ConversationLimits(maxTurns, maxMessageChars));
  }

  @Override
  protected boolean sharedAcrossInstances() {
    return true;
  }

  @Override
  protected long storedCopies(String text) {
    return count(
        "SELECT count(*) FROM "
            + schema
            + "."
            + PostgresConversationLog.TABLE
            + " t WHERE t::text LIKE '%"
            + text.replace("'", "''")
            + "%'");
  }

  @Test
  void aTurnAppendedOnOneHostIsReadOnTheOther() {
    ConversationLog a = open(200, 20_000);
    ConversationLog b = open(200, 20_000);
    a.append(turn("t1", "user:1", "c1", "from host a"));
    assertThat(b.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::userMessage)
        .containsExactly("from host a");
    assertThat(b.turns(A1, USER_2, "c1")).isEmpty();
  }

  @Test
  void theSchemaStepIsAppliedOnceAndErasureVacuums() throws Exception {
    ConversationLog log = open(200, 20_000);
    open(200, 20_000);
    assertThat(
            count(
                "SELECT count(*) FROM "
                    + schema
                    + ".memstack_schema WHERE component = 'conversations'"))
        .isEqualTo(1);
    log.append(turn("t1", "user:1", "c1"));
    log.append(turn("t2", "user:2", "c1"));
    log.forget(USER_1);
    String dead =
        "SELECT coalesce(sum(n_dead_tup), 0) FROM pg_stat_user_tables WHERE schemaname = '"
            + schema
            + "' AND relname = '"
            + PostgresConversationLog.TABLE
            + "'";
    // statistics are reported a moment late, and a snapshot of a concurrent test on the same
    // database can keep a vacuum from removing rows: ask again for a few seconds, erasing (and so
    // vacuuming) again
    long until = System.nanoTime() + java.time.Duration.ofSeconds(15).toNanos();
    while (count(dead) > 0 && System.nanoTime() < until) {
      Thread.sleep(500);
      log.forget(USER_1);
    }
    assertThat(count(dead)).isZero();
  }

  private Connection connect() throws SQLException {
    org.postgresql.ds.PGSimpleDataSource source = new org.postgresql.ds.PGSimpleDataSource();
    source.setUrl(url);
    if (user != null) {
      source.setUser(user);
    }
    if (password != null) {
      source.setPassword(password);
    }
    return source.getConnection();
  }

  private void execute(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  private long count(String sql) {
    try (Connection connection = connect();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
