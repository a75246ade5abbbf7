package dev.memstack.host.proof;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
  private ServerSocket listener;

  CuttableTcpProxy(String targetHost, int targetPort) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    listen(0);
    this.port = listener.getLocalPort();
  }

  int port() {
    return port;
  }

  synchronized void cut() {
    try {
      if (listener != null) {
        listener.close();
        listener = null;
      }
    } catch (IOException e) {
      // closing is best effort
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
    try {
      ServerSocket socket = new ServerSocket();
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 50);
      listener = socket;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ServerSocket socket = listener;
    Thread acceptor =
        new Thread(
            () -> {
              while (!socket.isClosed()) {
                try {
                  Socket client = socket.accept();
                  Socket server = new Socket(targetHost, targetPort);
                  if (!register(socket, client, server)) {
                    return; // cut while this connection was being opened: it must not survive
                  }
                  pump(client, server);
                  pump(server, client);
                } catch (IOException e) {
                  return;
                }
              }
            },
            "proxy-accept-" + onPort);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Adds a new connection, unless the listener that accepted it has been cut meanwhile. */
  private synchronized boolean register(ServerSocket from, Socket client, Socket server)
      throws IOException {
    if (listener != from) {
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
