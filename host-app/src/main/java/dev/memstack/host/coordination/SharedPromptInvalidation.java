package dev.memstack.host.coordination;

import dev.memstack.host.shared.SharedStore;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.SharedDatabase;
import dev.memstack.support.DaemonThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * System-prompt invalidation across the hosts of shared mode, by PostgreSQL {@code LISTEN/NOTIFY}
 * on channel {@value #CHANNEL}. A change forgets this host's cached prompt at once; the agent id is
 * then sent ({@code pg_notify}, payload {@code <host id>\n<agent id>}, an empty agent for all) from
 * a background thread that coalesces bursts and sends again after a failure, so a provider never
 * waits for the database. A listener thread keeps one connection of its own (outside the pool)
 * {@code LISTEN}ing and forgets each agent named by another host. When that connection is lost
 * (checked by a query after every quiet {@code 10s}), the whole cache is forgotten, the connection
 * is made again (1 s, then doubling up to 30 s between tries) and, once it listens, the whole cache
 * is forgotten once more: notifications sent while it was away were missed (so is the first time it
 * listens, for the prompts cached before).
 */
public final class SharedPromptInvalidation implements SystemPromptInvalidation {

  private static final Logger log = LoggerFactory.getLogger(SharedPromptInvalidation.class);

  /** The notification channel. */
  public static final String CHANNEL = "memstack_system_prompt";

  private static final String ALL = "";
  private static final long QUIET_CHECK_MILLIS = 10_000;
  private static final int WAIT_MILLIS = 500;

  private final SharedDatabase database;
  private final DataSource pool;
  private final String hostId;
  private final Consumer<AgentId> invalidate;
  private final Duration connectTimeout;
  private final Set<String> pending = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean sendQueued = new AtomicBoolean();
  private final ScheduledExecutorService sender;
  private final Thread listener;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong connects = new AtomicLong();
  private volatile boolean listening;

  /**
   * Starts the listener thread.
   *
   * @param store the shared database: its pool sends, the listener connects on its own
   * @param hostId this host's id; notifications that carry it are its own and skipped
   * @param invalidate the local cache's invalidation ({@code null} = every agent)
   */
  public SharedPromptInvalidation(
      SharedStore store, String hostId, Consumer<AgentId> invalidate, Duration connectTimeout) {
    this.pool = store.dataSource();
    this.database = store.database();
    this.hostId = Objects.requireNonNull(hostId, "hostId");
    this.invalidate = Objects.requireNonNull(invalidate, "invalidate");
    this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
    this.sender =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("memstack-prompt-notify"));
    this.listener = new Thread(this::listen, "memstack-prompt-listen");
    this.listener.setDaemon(true);
    this.listener.start();
  }

  @Override
  public void changed(AgentId agentOrNull) {
    invalidate.accept(agentOrNull);
    if (!running.get()) {
      return;
    }
    pending.add(agentOrNull == null ? ALL : agentOrNull.value());
    queueSend(0);
  }

  /** How many times the listener has connected and started to listen (for tests and health). */
  public long connects() {
    return connects.get();
  }

  /** Whether the listener is connected and listening now. */
  public boolean listening() {
    return listening;
  }

  private void queueSend(long delayMillis) {
    if (sendQueued.compareAndSet(false, true)) {
      try {
        sender.schedule(this::send, delayMillis, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        sendQueued.set(false); // closing
      }
    }
  }

  private void send() {
    sendQueued.set(false);
    List<String> agents = new ArrayList<>(pending);
    if (agents.isEmpty()) {
      return;
    }
    pending.removeAll(agents);
    if (agents.contains(ALL)) {
      agents = List.of(ALL);
    }
    try (Connection connection = pool.getConnection();
        PreparedStatement notify = connection.prepareStatement("SELECT pg_notify(?, ?)")) {
      for (String agent : agents) {
        notify.setString(1, CHANNEL);
        notify.setString(2, hostId + "\n" + agent);
        notify.execute();
      }
    } catch (SQLException | RuntimeException e) {
      pending.addAll(agents);
      if (running.get()) {
        log.warn(
            "system-prompt change of {} agent(s) not yet sent to the other hosts ({}); sent again"
                + " in 1s",
            agents.size(),
            e.toString());
        queueSend(1_000);
      }
    }
  }

  private void listen() {
    long backoff = 1_000;
    while (running.get()) {
      try (Connection connection = connect()) {
        try (Statement statement = connection.createStatement()) {
          statement.execute("LISTEN " + CHANNEL);
        }
        // listening from here on: whatever changed before (also between the host's start and
        // this first LISTEN) is covered by forgetting everything once
        invalidate.accept(null);
        listening = true;
        if (connects.incrementAndGet() > 1) {
          log.info("system-prompt notifications: listening again; the cache was emptied");
        }
        backoff = 1_000;
        PGConnection pg = connection.unwrap(PGConnection.class);
        long quietSince = System.nanoTime();
        while (running.get()) {
          PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
          if (notifications != null && notifications.length > 0) {
            notifications(notifications);
            quietSince = System.nanoTime();
          } else if (System.nanoTime() - quietSince
              >= TimeUnit.MILLISECONDS.toNanos(QUIET_CHECK_MILLIS)) {
            try (Statement check = connection.createStatement()) {
              check.execute("SELECT 1");
            }
            quietSince = System.nanoTime();
          }
        }
      } catch (SQLException | RuntimeException e) {
        listening = false;
        if (!running.get()) {
          return;
        }
        invalidate.accept(null);
        log.warn(
            "system-prompt notifications from the shared database lost ({}); cache emptied,"
                + " listening again in {} ms",
            e.toString(),
            backoff);
        sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
      } finally {
        listening = false;
      }
    }
  }

  private void notifications(PGNotification[] notifications) {
    for (PGNotification notification : notifications) {
      if (!CHANNEL.equals(notification.getName())) {
        continue;
      }
      String payload = notification.getParameter();
      int split = payload.indexOf('\n');
      if (split < 0 || payload.substring(0, split).equals(hostId)) {
        continue;
      }
      String agent = payload.substring(split + 1);
      if (agent.isEmpty()) {
        invalidate.accept(null);
      } else {
        try {
          invalidate.accept(AgentId.of(agent));
        } catch (IllegalArgumentException e) {
          invalidate.accept(null);
        }
      }
    }
  }

  private Connection connect() throws SQLException {
    Properties properties = new Properties();
    if (database.username() != null) {
      properties.setProperty("user", database.username());
    }
    if (database.password() != null) {
      properties.setProperty("password", database.password());
    }
    long seconds = Math.max(1, connectTimeout.toSeconds());
    properties.setProperty("connectTimeout", Long.toString(seconds));
    properties.setProperty("loginTimeout", Long.toString(seconds));
    properties.setProperty("socketTimeout", "60");
    properties.setProperty("tcpKeepAlive", "true");
    properties.setProperty("ApplicationName", "memstack prompt listener");
    Connection connection = new org.postgresql.Driver().connect(database.jdbcUrl(), properties);
    if (connection == null) {
      throw new SQLException("not a PostgreSQL URL: " + database);
    }
    return connection;
  }

  private void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running.set(false);
    }
  }

  /** Stops both threads; the listener closes its connection within half a second. */
  @Override
  public void close() {
    if (!running.compareAndSet(true, false)) {
      return;
    }
    sender.shutdown();
    try {
      sender.awaitTermination(2, TimeUnit.SECONDS);
      listener.join(3_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
