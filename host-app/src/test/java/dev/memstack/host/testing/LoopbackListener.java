package dev.memstack.host.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;

/**
 * A server socket on a loopback port (reused at once after a close, so a fake server can stop and
 * come back on the same port) whose connections a daemon thread hands to a handler until the socket
 * is closed.
 */
public final class LoopbackListener {

  /** Takes one accepted connection; {@code from} is the socket that accepted it. */
  @FunctionalInterface
  public interface Handler {
    void accepted(ServerSocket from, Socket client) throws IOException;
  }

  private final ServerSocket socket;
  private final Thread acceptor;

  private LoopbackListener(ServerSocket socket, Thread acceptor) {
    this.socket = socket;
    this.acceptor = acceptor;
  }

  /**
   * Listens on {@code port} (0 for any free one) and hands every connection to {@code handler} on a
   * daemon thread named {@code name}; the thread ends when the socket is closed or the handler
   * throws.
   */
  public static LoopbackListener open(int port, String name, Handler handler) {
    ServerSocket socket;
    try {
      socket = new ServerSocket();
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread acceptor =
        new Thread(
            () -> {
              while (!socket.isClosed()) {
                try {
                  handler.accepted(socket, socket.accept());
                } catch (IOException e) {
                  return;
                }
              }
            },
            name);
    acceptor.setDaemon(true);
    acceptor.start();
    return new LoopbackListener(socket, acceptor);
  }

  public int port() {
    return socket.getLocalPort();
  }

  /** The listening socket. */
  public ServerSocket socket() {
    return socket;
  }

  /** Closes the listening socket (best effort); accepted connections stay open. */
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing is best effort
    }
  }

  /**
   * Waits up to {@code limit} until the accepting thread has left the closed socket: only then is
   * the port free for a new listener.
   */
  public void awaitReleased(Duration limit) throws InterruptedException {
    acceptor.join(limit.toMillis());
  }
}
