package dev.memstack.outbox.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The outbox tables on the shared database (schema component {@code outbox}, applied once across
 * hosts by {@link OutboxDatabase#migrate}) and the shard count they were created with. The format
 * is fixed: existing outboxes are read by every later version.
 */
public final class PostgresOutboxSchema {

  /** The schema steps of component {@code outbox}. */
  public static final List<String> STEPS =
      List.of(
          """
          CREATE TABLE memstack_outbox_setting (name text PRIMARY KEY, value text NOT NULL);
          CREATE SEQUENCE memstack_outbox_position MINVALUE 0 START 0;
          CREATE TABLE memstack_outbox_record (
            position bigint PRIMARY KEY,
            shard int NOT NULL,
            kind smallint NOT NULL,
            owner text NOT NULL,
            recipients text[] NOT NULL,
            accepted_at bigint NOT NULL,
            body bytea NOT NULL);
          CREATE INDEX memstack_outbox_record_shard ON memstack_outbox_record (shard, position);
          CREATE INDEX memstack_outbox_record_owner ON memstack_outbox_record (owner, position);
          CREATE TABLE memstack_outbox_lane (
            lane text PRIMARY KEY,
            provider text NOT NULL,
            shard int NOT NULL,
            next bigint NOT NULL DEFAULT 0,
            parked_owners text[] NOT NULL DEFAULT '{}',
            parked_at bigint[] NOT NULL DEFAULT '{}',
            attempted_before bigint NOT NULL DEFAULT 0,
            holder text,
            epoch bigint NOT NULL DEFAULT 0,
            lease_until timestamptz);
          CREATE TABLE memstack_outbox_host (
            host text PRIMARY KEY,
            seen_at timestamptz NOT NULL,
            started_at timestamptz NOT NULL DEFAULT now());
          """,
          """
          CREATE TABLE memstack_outbox_dead_letter (
            id text PRIMARY KEY,
            provider text NOT NULL,
            position bigint NOT NULL,
            owner text NOT NULL,
            agent text,
            conversation_id text,
            turn_id text,
            accepted_at bigint NOT NULL,
            parked_at bigint NOT NULL,
            attempts int NOT NULL,
            reason text NOT NULL,
            detail text,
            record bytea NOT NULL);
          CREATE INDEX memstack_outbox_dead_letter_owner ON memstack_outbox_dead_letter (owner);
          """);

  private PostgresOutboxSchema() {}

  /**
   * Records the shard count when the outbox is new, else checks it against the one it was created
   * with.
   *
   * @throws IllegalStateException naming {@code memstack.outbox.shards} when they differ
   */
  static void checkShards(OutboxDatabase store, int shards) throws SQLException {
    try (Connection c = store.dataSource().getConnection();
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO memstack_outbox_setting (name, value) VALUES ('shards', ?)"
                    + " ON CONFLICT (name) DO NOTHING");
        PreparedStatement query =
            c.prepareStatement("SELECT value FROM memstack_outbox_setting WHERE name = 'shards'")) {
      insert.setString(1, Integer.toString(shards));
      insert.executeUpdate();
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        int stored = Integer.parseInt(rows.getString(1));
        if (stored != shards) {
          throw new IllegalStateException(
              "memstack.outbox.shards is "
                  + shards
                  + " but the shared turn outbox at "
                  + store.describe()
                  + " was created with "
                  + stored
                  + " shards; every host must use the same count");
        }
      }
    }
  }
}
