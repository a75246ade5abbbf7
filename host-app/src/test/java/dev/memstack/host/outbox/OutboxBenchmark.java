package dev.memstack.host.outbox;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.testing.SilentProvider;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.util.FileSystemUtils;

/**
 * Measures {@link OutboxEngine#enqueue} on this machine: turns per second and the latency of one
 * call (p50, p99), with and without {@code fsync}, from 1 and from 16 submitting threads, while two
 * no-op providers receive every turn. Not a test; run it with
 *
 * <pre>
 * ./mvnw -B -q -pl host-app test-compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
 *     -Dexec.classpathScope=test -Dexec.mainClass=dev.memstack.host.outbox.OutboxBenchmark
 * </pre>
 *
 * Optional argument ({@code -Dexec.args="..."}): the folder for the journals (default: a temporary
 * folder; it must be on the disk to be measured, not tmpfs). Turns carry a 200-character message
 * and reply. Each run starts with 500 turns of warm-up that are not counted.
 */
public final class OutboxBenchmark {

  private static final String TEXT = "x".repeat(200);

  private OutboxBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path root =
        args.length > 0
            ? Files.createDirectories(Path.of(args[0]))
            : Files.createTempDirectory("memstack-outbox-bench");
    try {
      System.out.println("| fsync | threads | turns | turns/s | p50 ms | p99 ms |");
      System.out.println("|---|---|---|---|---|---|");
      run(root, true, 1, 3_000);
      run(root, true, 16, 16_000);
      run(root, false, 1, 20_000);
      run(root, false, 16, 32_000);
      long[] raw = rawFsync(root);
      System.out.printf(
          Locale.ROOT,
          "%none 512-byte append + fdatasync on this disk, no journal: p50 %.3f ms, p99 %.3f ms%n",
          raw[raw.length / 2] / 1e6,
          raw[(int) (raw.length * 0.99)] / 1e6);
    } finally {
      FileSystemUtils.deleteRecursively(root);
    }
  }

  private static void run(Path root, boolean fsync, int threads, int turns) throws Exception {
    Path dir = root.resolve((fsync ? "fsync-" : "nofsync-") + threads);
    TestMembers members = new TestMembers();
    members.run(new SilentProvider("builtin")).run(new SilentProvider("vector"));
    List<String> recipients = List.of("builtin", "vector");
    try (OutboxEngine outbox =
        OutboxEngine.onDisk(
            dir,
            OutboxSettingsBuilder.defaults().fsync(fsync).build(),
            new StackDeliveryPort(members, new ProviderCalls(new SimpleMeterRegistry())))) {
      for (int i = 0; i < 500; i++) {
        outbox.enqueue(turn("warm-" + i), recipients);
      }
      long[] nanos = new long[turns];
      AtomicInteger next = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(threads);
      long start = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        Thread submitter =
            new Thread(
                () -> {
                  for (int i = next.getAndIncrement(); i < turns; i = next.getAndIncrement()) {
                    Turn turn = turn("t-" + i);
                    long before = System.nanoTime();
                    outbox.enqueue(turn, recipients);
                    nanos[i] = System.nanoTime() - before;
                  }
                  done.countDown();
                });
        submitter.start();
      }
      done.await();
      long wall = System.nanoTime() - start;
      Arrays.sort(nanos);
      System.out.printf(
          Locale.ROOT,
          "| %s | %d | %d | %.0f | %.3f | %.3f |%n",
          fsync ? "on" : "off",
          threads,
          turns,
          turns / (wall / 1e9),
          nanos[(int) (turns * 0.50)] / 1e6,
          nanos[Math.min(turns - 1, (int) (turns * 0.99))] / 1e6);
    }
  }

  private static long[] rawFsync(Path root) throws IOException {
    Path file = root.resolve("raw-fsync");
    long[] nanos = new long[1000];
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      ByteBuffer block = ByteBuffer.allocate(512);
      for (int i = 0; i < nanos.length; i++) {
        block.clear();
        long before = System.nanoTime();
        channel.write(block, (long) i * 512);
        channel.force(false);
        nanos[i] = System.nanoTime() - before;
      }
    }
    Files.delete(file);
    Arrays.sort(nanos);
    return nanos;
  }

  private static Turn turn(String id) {
    return new Turn(
        id,
        AgentId.of("agent-1"),
        OwnerKey.of("user:" + (id.hashCode() & 63)),
        "conversation-1",
        TEXT,
        TEXT,
        TriggerSource.API,
        Instant.now());
  }
}
