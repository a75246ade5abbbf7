package dev.memstack.builtin.store.postgres;

import dev.memstack.builtin.store.KeywordIndexConformance;
import dev.memstack.builtin.store.StoreAdapters;
import dev.memstack.builtin.store.Stores;
import dev.memstack.testing.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;

/**
 * The PostgreSQL keyword index of {@code store=postgres}, whose rows the store writes in each
 * commit; every store opened here has its own pool, as a host of its own would.
 */
@DisplayName("PostgresKeywordIndex")
class PostgresKeywordIndexTest extends KeywordIndexConformance {

  TestPostgres db;
  String schema;

  @BeforeEach
  void database() {
    db = TestPostgres.fromEnvironment();
    schema = BuiltinPostgres.schema(db);
  }

  @AfterEach
  void dropSchema() {
    if (db != null) {
      db.dropSchema(schema);
    }
  }

  @Override
  protected StoreAdapters open(Stores.Needs needs) {
    return PostgresStoreAdapters.open(BuiltinPostgres.settings(db, schema), needs);
  }
}
