package dev.memstack.host.coordination;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.spi.Coordination;
import dev.memstack.spi.ProviderUnavailableException;
import dev.memstack.spi.SharedDatabase;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Coordination of shared mode: every instance's {@link Coordination} is a {@link
 * PostgresCoordination} on the shared database, its names kept apart by the instance id. Creates
 * its tables at start ({@link SharedStore#migrate}, component {@code coordination}) and deletes run
 * claims older than two days and locks and cooldowns that ended a day ago, at most once an hour per
 * host. This host's holder ids start with {@link #hostId()}.
 */
public final class SharedCoordination implements ProviderCoordination {

  private static final Logger log = LoggerFactory.getLogger(SharedCoordination.class);
  private static final long PURGE_EVERY_MILLIS = 3_600_000;

  /** The schema steps of component {@code coordination}, in order; never edit a released step. */
  static final List<String> SCHEMA =
      List.of(
          """
          CREATE TABLE memstack_coordination_runs (instance text NOT NULL, job text NOT NULL,
            slot text NOT NULL, holder text NOT NULL,
            claimed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
            PRIMARY KEY (instance, job, slot));
          CREATE INDEX memstack_coordination_runs_claimed ON memstack_coordination_runs (claimed_at);
          CREATE TABLE memstack_coordination_locks (instance text NOT NULL, name text NOT NULL,
            holder text NOT NULL, expires_at timestamptz NOT NULL, PRIMARY KEY (instance, name));
          CREATE TABLE memstack_coordination_cooldowns (instance text NOT NULL, key text NOT NULL,
            until timestamptz NOT NULL, PRIMARY KEY (instance, key));
          CREATE TABLE memstack_coordination_counters (instance text NOT NULL, name text NOT NULL,
            value bigint NOT NULL, PRIMARY KEY (instance, name))
          """);

  private final SharedStore store;
  private final String hostId;
  private final Map<String, Coordination> byInstance = new ConcurrentHashMap<>();
  private final AtomicLong lastPurge = new AtomicLong();

  /**
   * Brings the tables up to date.
   *
   * @throws SQLException when the shared database cannot be reached or a schema step fails
   */
  public SharedCoordination(SharedStore store, String hostId) throws SQLException {
    this(store, hostId, true);
  }

  /** With {@code migrate=false} the tables are taken as they are (tests of an unreachable one). */
  SharedCoordination(SharedStore store, String hostId, boolean migrate) throws SQLException {
    this.store = Objects.requireNonNull(store, "store");
    this.hostId = Objects.requireNonNull(hostId, "hostId");
    if (migrate) {
      store.migrate("coordination", SCHEMA);
    }
  }

  /** A host id for holder names: host name, process id and a random part (unique per start). */
  public static String newHostId() {
    String name;
    try {
      name = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      name = "host";
    }
    return name
        + "/"
        + ManagementFactory.getRuntimeMXBean().getPid()
        + "/"
        + UUID.randomUUID().toString().substring(0, 8);
  }

  /** This host's part of every holder id. */
  public String hostId() {
    return hostId;
  }

  @Override
  public Coordination of(String instanceId) {
    Objects.requireNonNull(instanceId, "instanceId");
    return byInstance.computeIfAbsent(instanceId, id -> new PostgresCoordination(this, id));
  }

  @Override
  public Optional<SharedDatabase> sharedDatabase() {
    return Optional.of(store.database());
  }

  DataSource dataSource() {
    return store.dataSource();
  }

  /** Deletes what is long over, when this host has not done so for an hour. */
  void purgeIfDue() {
    long now = System.currentTimeMillis();
    long last = lastPurge.get();
    if (now - last < PURGE_EVERY_MILLIS || !lastPurge.compareAndSet(last, now)) {
      return;
    }
    try (Connection connection = dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      int runs =
          statement.executeUpdate(
              "DELETE FROM memstack_coordination_runs"
                  + " WHERE claimed_at < clock_timestamp() - interval '2 days'");
      statement.executeUpdate(
          "DELETE FROM memstack_coordination_locks"
              + " WHERE expires_at < clock_timestamp() - interval '1 day'");
      statement.executeUpdate(
          "DELETE FROM memstack_coordination_cooldowns"
              + " WHERE until < clock_timestamp() - interval '1 day'");
      log.debug("coordination: {} old run claims deleted", runs);
    } catch (SQLException e) {
      log.debug("coordination: purge of old rows failed, tried again later: {}", e.toString());
    }
  }

  /**
   * The exception for a failed statement: {@link ProviderUnavailableException} when the database
   * could not be reached (no connection in time, connection lost, server shutting down or out of
   * resources), else an {@link IllegalStateException}. Messages hold no credentials.
   */
  RuntimeException failure(String what, SQLException e) {
    String message =
        "coordination on the shared database " + store.describe() + ": " + what + " failed: " + e;
    if (unreachable(e)) {
      return new ProviderUnavailableException(
          message + " (the database is unreachable; try again at the next round)", e);
    }
    return new IllegalStateException(message, e);
  }

  static boolean unreachable(SQLException e) {
    if (e instanceof SQLTransientException || e instanceof SQLRecoverableException) {
      return true;
    }
    String state = e.getSQLState();
    return state == null
        || state.startsWith("08")
        || state.startsWith("53")
        || state.startsWith("57P");
  }
}
