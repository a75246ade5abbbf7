package dev.memstack.mem0;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Accepts TCP connections on loopback and never answers: a hung server. */
final class SilentServer implements AutoCloseable {

  private final ServerSocket socket;
  private final List<Socket> accepted = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  SilentServer() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor =
        new Thread(
            () -> {
              while (!socket.isClosed()) {
                try {
                  accepted.add(socket.accept());
                } catch (IOException e) {
                  return;
                }
              }
            },
            "silent-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  int connections() {
    return accepted.size();
  }

  @Override
  public void close() throws IOException {
    socket.close();
    for (Socket s : accepted) {
      s.close();
    }
  }

  /** A loopback port nobody listens on. */
  static int closedPort() throws IOException {
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
  }
}
