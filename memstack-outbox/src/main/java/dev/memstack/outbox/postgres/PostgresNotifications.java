package dev.memstack.outbox.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntConsumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends of every host, as PostgreSQL notifications on {@value #CHANNEL} (the payload is the
 * shard): one thread listens on a connection of its own and calls the listeners once per shard and
 * batch of notifications; it listens again after a lost connection.
 */
final class PostgresNotifications {

  private static final Logger log = LoggerFactory.getLogger(PostgresJournal.class);

  /** The channel appends notify, with their shard as the payload. */
  static final String CHANNEL = "memstack_outbox";

  private final OutboxDatabase store;
  private final int shards;
  private final List<IntConsumer> appendListeners = new CopyOnWriteArrayList<>();
  private final Thread listener;
  private volatile boolean closed;

  PostgresNotifications(OutboxDatabase store, int shards) {
    this.store = store;
    this.shards = shards;
    this.listener = new Thread(this::listen, "memstack-outbox-listen");
    listener.setDaemon(true);
  }

  void start() {
    listener.start();
  }

  void onAppend(IntConsumer shard) {
    appendListeners.add(Objects.requireNonNull(shard, "shard"));
  }

  void close() {
    closed = true;
    listener.interrupt();
  }

  /** Waits for NOTIFY on the outbox channel and wakes the lanes of the shard appended to. */
  private void listen() {
    while (!closed) {
      try (Connection c = store.dataSource().getConnection()) {
        try (Statement statement = c.createStatement()) {
          statement.execute("LISTEN " + CHANNEL);
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        while (!closed) {
          PGNotification[] notifications = pg.getNotifications(500);
          if (notifications == null) {
            continue;
          }
          boolean[] woken = new boolean[shards];
          for (PGNotification notification : notifications) {
            try {
              int shard = Integer.parseInt(notification.getParameter());
              if (shard >= 0 && shard < shards && !woken[shard]) {
                woken[shard] = true;
                appendListeners.forEach(l -> l.accept(shard));
              }
            } catch (NumberFormatException e) {
              // not ours
            }
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (closed) {
          return;
        }
        log.debug("Outbox notification listener: {}; listening again in 1 s", e.getMessage());
        try {
          Thread.sleep(1000);
        } catch (InterruptedException interrupted) {
          return;
        }
      }
    }
  }
}
