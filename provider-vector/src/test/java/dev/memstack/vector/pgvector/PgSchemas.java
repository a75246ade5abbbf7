package dev.memstack.vector.pgvector;

import java.util.ArrayList;
import java.util.List;

/** The schemas one test class created, dropped together when it ends. */
final class PgSchemas {

  private final List<String> created = new ArrayList<>();

  /** A fresh schema name, remembered for {@link #dropAll}. */
  synchronized String next() {
    String schema = PgTestDatabase.newSchemaName();
    created.add(schema);
    return schema;
  }

  synchronized void dropAll(PgTestDatabase database) {
    if (database != null) {
      created.forEach(database::dropSchema);
    }
    created.clear();
  }
}
