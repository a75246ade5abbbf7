package dev.memstack.host.proof;

import dev.memstack.host.testing.LoopbackListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy to one target that a test can {@link #cut()} (listening socket and every
 * open connection closed: new connections are refused, running ones break) and {@link #restore()}
 * on the same port: a database outage without stopping the shared database server.
 */
final class CuttableTcpProxy implements AutoCloseable {

  private final String targetHost;
  private final int targetPort;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final int port;
  private LoopbackListener listener;

  CuttableTcpProxy(String targetHost, int targetPort) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    listen(0);
    this.port = listener.port();
  }

  int port() {
    return port;
  }

  synchronized void cut() {
    if (listener != null) {
      listener.close();
      listener = null;
    }
    for (Socket socket : open) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing is best effort
      }
    }
    open.clear();
  }

  synchronized void restore() {
    if (listener == null) {
      listen(port);
    }
  }

  @Override
  public void close() {
    cut();
  }

  private void listen(int onPort) {
    listener =
        LoopbackListener.open(
            onPort,
            "proxy-accept-" + onPort,
            (from, client) -> {
              Socket server = new Socket(targetHost, targetPort);
              if (!register(from, client, server)) {
                // cut while this connection was being opened: it must not survive
                throw new IOException("cut");
              }
              pump(client, server);
              pump(server, client);
            });
  }

  /** Adds a new connection, unless the listener that accepted it has been cut meanwhile. */
  private synchronized boolean register(ServerSocket from, Socket client, Socket server)
      throws IOException {
    if (listener == null || listener.socket() != from) {
      client.close();
      server.close();
      return false;
    }
    open.add(client);
    open.add(server);
    return true;
  }

  private void pump(Socket from, Socket to) {
    Thread thread =
        new Thread(
            () -> {
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
              } catch (IOException e) {
                // the other side or a cut closed the connection
              } finally {
                try {
                  from.close();
                  to.close();
                } catch (IOException e) {
                  // closing is best effort
                }
                open.remove(from);
                open.remove(to);
              }
            },
            "proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }
}
