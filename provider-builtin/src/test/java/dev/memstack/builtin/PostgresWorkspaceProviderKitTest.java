package dev.memstack.builtin;

import dev.memstack.builtin.store.postgres.BuiltinPostgres;
import dev.memstack.builtin.store.postgres.SharedModeContext;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderContext;
import dev.memstack.testing.TestPostgres;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;

/**
 * The compatibility kit against the builtin provider of a host in shared mode: no {@code store}
 * key, so the workspace is in the shared PostgreSQL database ({@code MEMSTACK_PG_URL}; skipped by
 * assumption without it, except on CI). Each test has its own schema. Shared memory is written as
 * in {@link WorkspaceMemoryProviderKitTest}.
 */
class PostgresWorkspaceProviderKitTest extends WorkspaceMemoryProviderKitTest {

  private static final List<String> SCHEMAS = new CopyOnWriteArrayList<>();

  private TestPostgres database;

  @Override
  protected ProviderConfig config() {
    database = TestPostgres.fromEnvironment();
    String schema = BuiltinPostgres.schema(database);
    SCHEMAS.add(schema);
    return ProviderConfig.of(
        "memstack.providers." + instanceId() + ".config", Map.of("schema", schema));
  }

  @Override
  protected MemoryProvider createProvider(ProviderContext context) {
    return new BuiltinMemoryProviderFactory()
        .create(new SharedModeContext(context, BuiltinPostgres.shared(database)));
  }

  @AfterAll
  static void dropSchemas() {
    if (!TestPostgres.configured()) {
      return;
    }
    TestPostgres database = TestPostgres.fromEnvironment();
    for (String schema : SCHEMAS) {
      database.dropSchema(schema);
    }
    SCHEMAS.clear();
  }
}
