package dev.memstack.outbox.postgres;

import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * The shared PostgreSQL database a {@link PostgresJournal} lives in, as the host hands it over: a
 * pool, a name for messages, and the host's schema migration (steps of one component applied once,
 * in order, whichever host starts first).
 */
public interface OutboxDatabase {

  /** The pool; connections are PostgreSQL's ({@code LISTEN} unwraps {@code PGConnection}). */
  DataSource dataSource();

  /** Where the database is, without credentials, for messages. */
  String describe();

  /** Applies the steps of {@code component} that are not applied yet, in order, exactly once. */
  void migrate(String component, List<String> steps) throws SQLException;
}
