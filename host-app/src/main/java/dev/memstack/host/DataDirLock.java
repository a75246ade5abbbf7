package dev.memstack.host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;

/**
 * One data dir, one host: before any bean is created (so before a provider, the outbox or the
 * conversation log opens a file), takes an exclusive lock on {@code <memstack.data-dir>/host.lock}
 * and keeps it until the context closes; a second host process (or a second host in the same JVM)
 * on the same data dir fails to start with a message naming the folder, whatever providers and
 * outbox are configured. Registered in {@code META-INF/spring.factories}.
 */
public final class DataDirLock
    implements ApplicationContextInitializer<ConfigurableApplicationContext> {

  /** The lock file's name inside the data dir. */
  public static final String FILE = "host.lock";

  @Override
  public void initialize(ConfigurableApplicationContext context) {
    if (context.getParent() != null) {
      return; // a child context (e.g. a management server) shares its parent's lock
    }
    Path dir = Path.of(context.getEnvironment().getProperty("memstack.data-dir", "./data"));
    Held held = acquire(dir);
    // typed: a lambda's event type cannot be read, so Spring would hand it
    // every event (one a request) and catch the ClassCastException each time
    context.addApplicationListener(
        new ApplicationListener<ContextClosedEvent>() {
          @Override
          public void onApplicationEvent(ContextClosedEvent event) {
            if (event.getApplicationContext() == context) {
              held.release();
            }
          }
        });
  }

  /**
   * Locks {@code dir} for this host.
   *
   * @throws IllegalStateException when another host holds it
   * @throws UncheckedIOException when the folder or the lock file cannot be created
   */
  public static Held acquire(Path dir) {
    Path folder = dir.toAbsolutePath().normalize();
    FileChannel channel;
    try {
      Files.createDirectories(folder);
      channel =
          FileChannel.open(
              folder.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot create the data dir " + folder + " (memstack.data-dir): " + e, e);
    }
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException | IOException e) {
      lock = null;
    }
    if (lock == null) {
      closeQuietly(channel);
      throw new IllegalStateException(
          "the data dir "
              + folder
              + " is in use by another memstack host (memstack.data-dir); one data dir serves one"
              + " host at a time");
    }
    return new Held(channel, lock);
  }

  /** A held lock; {@link #release()} once. */
  public static final class Held {
    private final FileChannel channel;
    private final FileLock lock;

    private Held(FileChannel channel, FileLock lock) {
      this.channel = channel;
      this.lock = lock;
    }

    public synchronized void release() {
      try {
        if (lock.isValid()) {
          lock.release();
        }
      } catch (IOException e) {
        // the channel's close below releases it too
      }
      closeQuietly(channel);
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // nothing more to do
    }
  }
}
