package dev.memstack.host.coordination;

import dev.memstack.spi.Coordination;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One instance's {@link Coordination} on the shared database, every answer one statement that
 * PostgreSQL applies atomically: a run claim is {@code INSERT ... ON CONFLICT DO NOTHING}; a lock
 * or a cooldown is an upsert that takes the row only {@code WHERE} the one stored has expired (two
 * hosts racing for it are ordered by the row lock, the second sees the first's row and gets
 * nothing); a counter is {@code value = value + delta RETURNING value}. Times are the database's
 * ({@code clock_timestamp()}), so hosts with skewed clocks agree. Each lease has its own holder id
 * ({@code <host id>/<instance>#<n>}), so two callers on one host exclude each other like two hosts
 * do. A database that cannot be reached gives {@link
 * dev.memstack.spi.ProviderUnavailableException}.
 */
final class PostgresCoordination implements Coordination {

  private static final Logger log = LoggerFactory.getLogger(PostgresCoordination.class);

  private final SharedCoordination shared;
  private final String instance;
  private final AtomicLong leases = new AtomicLong();

  PostgresCoordination(SharedCoordination shared, String instance) {
    this.shared = shared;
    this.instance = instance;
  }

  @Override
  public boolean shared() {
    return true;
  }

  @Override
  public boolean claimRun(String job, String slot) {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(slot, "slot");
    shared.purgeIfDue();
    return update(
            "claim run " + job + " @ " + slot,
            "INSERT INTO memstack_coordination_runs (instance, job, slot, holder)"
                + " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            instance,
            job,
            slot,
            shared.hostId() + "/" + instance)
        == 1;
  }

  @Override
  public Optional<Lease> tryLock(String name, Duration lease) {
    Objects.requireNonNull(name, "name");
    long millis = positiveMillis(lease, "lease");
    String holder = shared.hostId() + "/" + instance + "#" + leases.incrementAndGet();
    boolean taken =
        returnsRow(
            "take lock " + name,
            "INSERT INTO memstack_coordination_locks AS l (instance, name, holder, expires_at)"
                + " VALUES (?, ?, ?, clock_timestamp() + ? * interval '1 millisecond')"
                + " ON CONFLICT (instance, name) DO UPDATE"
                + " SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at"
                + " WHERE l.expires_at <= clock_timestamp() RETURNING 1",
            instance,
            name,
            holder,
            millis);
    return taken ? Optional.of(new HeldLease(name, holder, millis)) : Optional.empty();
  }

  @Override
  public boolean tryStartCooldown(String key, Duration cooldown) {
    Objects.requireNonNull(key, "key");
    long millis = positiveMillis(cooldown, "cooldown");
    return returnsRow(
        "start cooldown " + key,
        "INSERT INTO memstack_coordination_cooldowns AS c (instance, key, until)"
            + " VALUES (?, ?, clock_timestamp() + ? * interval '1 millisecond')"
            + " ON CONFLICT (instance, key) DO UPDATE SET until = EXCLUDED.until"
            + " WHERE c.until <= clock_timestamp() RETURNING 1",
        instance,
        key,
        millis);
  }

  @Override
  public long addAndGet(String counter, long delta) {
    Objects.requireNonNull(counter, "counter");
    return query(
        "add to counter " + counter,
        "INSERT INTO memstack_coordination_counters AS c (instance, name, value)"
            + " VALUES (?, ?, ?) ON CONFLICT (instance, name)"
            + " DO UPDATE SET value = c.value + EXCLUDED.value RETURNING value",
        rows -> {
          rows.next();
          return rows.getLong(1);
        },
        instance,
        counter,
        delta);
  }

  /** What a bound statement, or the rows of a query, give. */
  @FunctionalInterface
  private interface Step<I, T> {
    T apply(I input) throws SQLException;
  }

  private int update(String what, String sql, Object... params) {
    return execute(what, sql, PreparedStatement::executeUpdate, params);
  }

  private boolean returnsRow(String what, String sql, Object... params) {
    return query(what, sql, ResultSet::next, params);
  }

  private <T> T query(String what, String sql, Step<ResultSet, T> read, Object... params) {
    return execute(
        what,
        sql,
        statement -> {
          try (ResultSet rows = statement.executeQuery()) {
            return read.apply(rows);
          }
        },
        params);
  }

  /**
   * Runs {@code sql} with {@code params} on a connection of its own; a failure names {@code what}.
   */
  private <T> T execute(String what, String sql, Step<PreparedStatement, T> run, Object... params) {
    try (Connection connection = shared.dataSource().getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      bind(statement, params);
      return run.apply(statement);
    } catch (SQLException e) {
      throw shared.failure(what, e);
    }
  }

  private static void bind(PreparedStatement statement, Object... params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      if (params[i] instanceof Long number) {
        statement.setLong(i + 1, number);
      } else {
        statement.setString(i + 1, (String) params[i]);
      }
    }
  }

  private static long positiveMillis(Duration duration, String name) {
    Objects.requireNonNull(duration, name);
    if (duration.isZero() || duration.isNegative()) {
      throw new IllegalArgumentException(name + " must be positive, got " + duration);
    }
    return Math.max(1, duration.toMillis());
  }

  @Override
  public String toString() {
    return "PostgresCoordination[" + instance + "]";
  }

  /** A lock this host holds, known by its holder id. */
  private final class HeldLease implements Lease {
    private final String name;
    private final String holder;
    private final long millis;
    private final AtomicBoolean closed = new AtomicBoolean();

    HeldLease(String name, String holder, long millis) {
      this.name = name;
      this.holder = holder;
      this.millis = millis;
    }

    @Override
    public boolean renew() {
      if (closed.get()) {
        return false;
      }
      return update(
              "renew lock " + name,
              "UPDATE memstack_coordination_locks"
                  + " SET expires_at = clock_timestamp() + ? * interval '1 millisecond'"
                  + " WHERE instance = ? AND name = ? AND holder = ?",
              millis,
              instance,
              name,
              holder)
          == 1;
    }

    @Override
    public void close() {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      try {
        update(
            "release lock " + name,
            "DELETE FROM memstack_coordination_locks"
                + " WHERE instance = ? AND name = ? AND holder = ?",
            instance,
            name,
            holder);
      } catch (RuntimeException e) {
        log.warn("{}; the lock is free once its lease has passed", e.getMessage());
      }
    }
  }
}
