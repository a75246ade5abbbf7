package dev.memstack.builtin.store.files;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index under interrupts: callers interrupted at random moments never break the writer (it is
 * never reopened), and a writer broken anyway (here: by interrupting the index thread itself, which
 * nobody but this test does) is reopened and loses none of the changes since the last commit.
 */
@DisplayName("The keyword index under interrupts")
class LuceneKeywordIndexInterruptTest {

  private static final Bucket TEAM = Bucket.team(AgentId.of("a1"));

  @TempDir Path dir;

  @Test
  @DisplayName("never breaks its writer when its callers are interrupted")
  void interruptedCallersNeverBreakTheWriter() throws Exception {
    try (LuceneKeywordIndex index = new LuceneKeywordIndex(dir, 80, Duration.ZERO)) {
      List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger done = new AtomicInteger();
      List<Thread> callers = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        int caller = c;
        Thread thread =
            new Thread(
                () -> {
                  for (int i = 0; !stop.get(); i++) {
                    try {
                      if (i % 2 == 0) {
                        write(index, "c" + caller + "/f" + (i % 20) + ".md", "heron " + i);
                      } else {
                        index.search(List.of(TEAM), "heron", 5, 50, 1.5, List.of());
                        index.stamps();
                      }
                      done.incrementAndGet();
                    } catch (RuntimeException e) {
                      failures.add(e);
                    } finally {
                      Thread.interrupted();
                    }
                  }
                });
        callers.add(thread);
        thread.start();
      }
      // at least two seconds and a hundred calls (each write commits and flushes to disk)
      long start = System.nanoTime();
      long end = start + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < end
          && (done.get() < 100 || System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2))) {
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(20_000, 1_000_000));
        callers.get(ThreadLocalRandom.current().nextInt(callers.size())).interrupt();
      }
      stop.set(true);
      for (Thread thread : callers) {
        thread.join(30_000);
      }

      assertThat(done.get()).isGreaterThanOrEqualTo(100);
      assertThat(failures).isEmpty();
      assertThat(index.reopens()).as("writer reopens").isZero();
      write(index, "after.md", "the egret arrived");
      assertThat(index.search(List.of(TEAM), "egret", 5, 50, 1.5, List.of())).hasSize(1);
    }
  }

  @Test
  @DisplayName("reopens a broken writer and keeps every change made since the last commit")
  void reopensABrokenWriterWithoutLosingChanges() throws Exception {
    // a long commit interval: every change since the start lives only in the writer
    try (LuceneKeywordIndex index = new LuceneKeywordIndex(dir, 80, Duration.ofHours(1))) {
      Thread indexThread = indexThread();
      int written = 0;
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (index.reopens() == 0 && System.nanoTime() < end) {
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread saboteur =
            new Thread(
                () -> {
                  while (writing.get()) {
                    indexThread.interrupt();
                    LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000, 200_000));
                  }
                });
        saboteur.start();
        try {
          for (int i = 0; i < 20; i++, written++) {
            try {
              write(index, "f" + written + ".md", "ibis" + written + " lives here");
            } catch (RuntimeException e) {
              // the change that met the broken writer may fail once; it is kept for the replay
            }
          }
        } finally {
          writing.set(false);
          saboteur.join();
        }
      }

      assertThat(index.reopens()).as("the saboteur broke the writer at least once").isPositive();
      write(index, "last.md", "the last ibis");
      for (int i = 0; i < written; i++) {
        assertThat(index.search(List.of(TEAM), "ibis" + i, 5, 50, 1.5, List.of()))
            .as("change %d survives the reopen", i)
            .hasSize(1);
      }
    }
  }

  private static void write(LuceneKeywordIndex index, String name, String content) {
    index.replace(
        TEAM,
        WorkspacePath.of(name),
        content,
        new FileStamp(content.length(), 1),
        Instant.EPOCH,
        false);
    index.refresh();
  }

  private static Thread indexThread() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("memstack-builtin-index"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no index thread running"));
  }
}
