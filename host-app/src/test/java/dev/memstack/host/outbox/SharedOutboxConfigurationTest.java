package dev.memstack.host.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.shared.SharedDatabaseConfiguration;
import dev.memstack.host.stack.StackConfiguration;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.TurnOutbox;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Which outbox shared mode gets: postgres by default, and neither a local outbox while it is on nor
 * the postgres one while it is off. Only the default case needs the database of {@code
 * MEMSTACK_PG_URL}; the refusals happen before any connection.
 */
class SharedOutboxConfigurationTest {

  @TempDir Path data;

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withUserConfiguration(
            StackConfiguration.class, SharedDatabaseConfiguration.class, OutboxConfiguration.class)
        .withBean(StackMembers.class, TestMembers::new)
        .withPropertyValues("memstack.data-dir=" + data);
  }

  @Test
  void typePostgresWithoutASharedDatabaseStopsTheStartNamingTheSharedUrl() {
    runner()
        .withPropertyValues("memstack.outbox.type=postgres")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("memstack.shared.jdbc-url"));
  }

  @Test
  void aLocalTypeInSharedModeStopsTheStartNamingTheOutboxType() {
    for (String type : new String[] {"journal", "memory"}) {
      runner()
          .withPropertyValues(
              "memstack.outbox.type=" + type,
              "memstack.shared.jdbc-url=jdbc:postgresql://127.0.0.1:1/nowhere")
          .run(
              context ->
                  assertThat(context)
                      .getFailure()
                      .rootCause()
                      .hasMessageContaining("memstack.outbox.type=" + type)
                      .hasMessageContaining("another host could not deliver or erase"));
    }
  }

  @Test
  void aShardCountOutOfRangeStopsTheStartNamingTheKey() {
    runner()
        .withPropertyValues("memstack.outbox.shards=0")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("memstack.outbox.shards must be between 1 and 1024"));
  }

  @Test
  void sharedModeRunsTheOutboxOnTheSharedDatabaseByDefault() {
    try (SharedOutboxDatabase database = SharedOutboxDatabase.create()) {
      runner()
          .withPropertyValues(
              "memstack.shared.jdbc-url=" + database.url(),
              "memstack.shared.username=" + database.user(),
              "memstack.shared.password=" + database.password(),
              "memstack.outbox.shards=4")
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                OutboxEngine engine = (OutboxEngine) context.getBean(TurnOutbox.class);
                assertThat(engine.journalStats().type()).isEqualTo("postgres");
                assertThat(engine.sharedState()).isPresent();
                assertThat(data.resolve("outbox")).doesNotExist();
              });
      assertThat(database.count("SELECT value::int FROM memstack_outbox_setting")).isEqualTo(4);
    }
  }
}
