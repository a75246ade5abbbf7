package dev.memstack.host.chat;

import dev.memstack.support.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The threads streamed chats run on (one per stream, daemon, named {@code memstack-chat-N}), and
 * how long a stream may last ({@code memstack.chat.stream-timeout}).
 */
public final class ChatStreams implements AutoCloseable {

  private final ExecutorService threads;
  private final Duration timeout;

  public ChatStreams(Duration timeout) {
    this.timeout = timeout;
    this.threads = Executors.newCachedThreadPool(DaemonThreads.numbered("memstack-chat-"));
  }

  /** Runs one stream. */
  public void run(Runnable stream) {
    threads.execute(stream);
  }

  /** How long a stream may last. */
  public Duration timeout() {
    return timeout;
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
