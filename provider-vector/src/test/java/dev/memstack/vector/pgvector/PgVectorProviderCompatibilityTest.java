package dev.memstack.vector.pgvector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.MemoryProvider;
import dev.memstack.spi.ProviderConfig;
import dev.memstack.spi.ProviderContext;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolCall;
import dev.memstack.tck.MemoryProviderCompatibilityKit;
import dev.memstack.tck.SharedRecords;
import dev.memstack.testing.TestPostgresCondition;
import dev.memstack.vector.VectorMemoryProviderFactory;
import dev.memstack.vector.VectorSharedRecords;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The compatibility kit on the vector provider with {@code store=pgvector}, on the configured
 * PostgreSQL (MEMSTACK_PG_URL).
 */
@ExtendWith(TestPostgresCondition.class)
@DisplayName(
    "Compatibility kit: vector provider, pgvector store on the configured PostgreSQL (MEMSTACK_PG_URL)")
class PgVectorProviderCompatibilityTest extends MemoryProviderCompatibilityKit {

  private static final PgSchemas SCHEMAS = new PgSchemas();
  private static PgTestDatabase database;

  @BeforeAll
  static void findDatabase() {
    database = PgTestDatabase.fromEnvironment();
  }

  @AfterAll
  static void dropSchemas() {
    SCHEMAS.dropAll(database);
  }

  @Override
  protected MemoryProvider createProvider(ProviderContext context) {
    return new VectorMemoryProviderFactory().create(context);
  }

  @Override
  protected ProviderConfig config() {
    Map<String, String> config = new HashMap<>(database.storeConfig(SCHEMAS.next()));
    config.put("store", PgVectorMemoryStoreFactory.NAME);
    return ProviderConfig.of("memstack.providers." + instanceId() + ".config", config);
  }

  @Override
  protected void writeShared(MemoryProvider provider, AgentId agent, Scope scope, String text) {
    // shared memory is written through the remember tool, as on the embedded store
    String arguments =
        "{\"scope\":\""
            + scope.name().toLowerCase(Locale.ROOT)
            + "\",\"type\":\"FACT\",\"text\":\""
            + text.replace("\\", "\\\\").replace("\"", "\\\"")
            + "\"}";
    provider.callTool(new ToolCall(agent, null, "remember", arguments));
  }

  @Override
  protected SharedRecords sharedRecords() {
    return VectorSharedRecords.create();
  }
}
