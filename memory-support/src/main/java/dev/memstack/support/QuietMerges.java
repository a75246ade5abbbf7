package dev.memstack.support;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.apache.lucene.index.FilterMergePolicy;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FilterDirectory;

/**
 * Merges a Lucene index's small segments once its writes have gone quiet, so that searches of an
 * index that is read far more than written walk one or two segments instead of the ten or so a
 * tiered merge policy leaves: every term is looked up, and every filter and scorer set up, once per
 * segment (on a REALTALK host, ten segments cost ~0.7 ms of CPU a context call against one).
 *
 * <p>What a quiet merge does is decided by {@link #policy}: the segments other than the largest are
 * merged into one, and the largest is merged with them only once they hold at least a quarter of
 * its size, so an index that takes a turn now and then is not rewritten whole after each (every
 * record is rewritten a logarithmic number of times, as under the tiered policy). No quiet merge
 * writes more than {@link #MAX_MERGE_BYTES}; larger indexes keep the tiered policy's segments.
 *
 * <p>The check runs on a thread of its own {@link #QUIET} after the last write ({@link #wrote()});
 * {@code merge} runs there, holding {@link #lock()}, which an erasure's expunge takes too so that a
 * merge begun before a delete cannot leave the deleted bytes in a segment the expunge did not see.
 * Needs Lucene on the plugin's class path.
 */
public final class QuietMerges implements AutoCloseable {

  /** How long an index goes without a write before its small segments are merged. */
  public static final Duration QUIET = Duration.ofSeconds(10);

  /** The largest quiet merge, in bytes of the segments merged. */
  public static final long MAX_MERGE_BYTES = 128L * 1024 * 1024;

  /** The others are merged with the largest segment once they hold this share of its size. */
  static final double FULL_MERGE_SHARE = 0.25;

  /** The work of one quiet merge. */
  public interface Merge {
    void run() throws IOException;
  }

  private final Merge merge;
  private final long quietNanos;
  private final LongSupplier nanoTime;
  private final ScheduledThreadPoolExecutor thread;
  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private volatile long lastWriteNanos;
  private volatile boolean closed;

  /**
   * @param threadName of the thread the checks and merges run on (a daemon)
   * @param merge what a quiet index does: {@link #mergeSmallSegments} on its writer, then makes the
   *     result searchable and durable; a failure is left to the next write to find
   */
  public QuietMerges(String threadName, Merge merge) {
    this(threadName, merge, QUIET, System::nanoTime);
  }

  QuietMerges(String threadName, Merge merge, Duration quiet, LongSupplier nanoTime) {
    Objects.requireNonNull(threadName, "threadName");
    this.merge = Objects.requireNonNull(merge, "merge");
    this.quietNanos = quiet.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    this.lastWriteNanos = nanoTime.getAsLong();
    this.thread =
        new ScheduledThreadPoolExecutor(
            1,
            runnable -> {
              Thread t = new Thread(runnable, threadName);
              t.setDaemon(true);
              return t;
            });
    // close never interrupts: a merge may be writing files, and an interrupt closes a channel
    thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    thread.setRemoveOnCancelPolicy(true);
  }

  /**
   * A merge policy that leaves every merge to {@code natural} but the forced ones, which it makes
   * as the class comment says; use it as the writer's policy.
   */
  public static MergePolicy policy(MergePolicy natural) {
    return new SmallSegments(natural);
  }

  /**
   * Merges the small segments of {@code writer}, whose policy is {@link #policy}, and waits for it;
   * does nothing when there is nothing worth merging.
   *
   * @return whether the writer now has changes to commit (the merge's, or writes since the last
   *     commit): when not, the caller need not commit or refresh
   */
  public static boolean mergeSmallSegments(IndexWriter writer) throws IOException {
    Directory directory = FilterDirectory.unwrap(writer.getDirectory());
    if (directory instanceof FSDirectory files
        && !Files.exists(files.getDirectory().resolve(IndexWriter.WRITE_LOCK_NAME))) {
      // the index's folder is gone, or its lock with it: the merge could only fail, and on a merge
      // thread, where nobody would hear of it but the thread's uncaught-exception handler
      return false;
    }
    writer.forceMerge(1, true);
    return writer.hasUncommittedChanges();
  }

  /** Notes a write: the index is checked again {@link #QUIET} after the last one. */
  public void wrote() {
    lastWriteNanos = nanoTime.getAsLong();
    schedule(quietNanos);
  }

  /** Checks the index {@link #QUIET} from now (for an index just opened). */
  public void check() {
    schedule(quietNanos);
  }

  /** Runs the merge now on the calling thread, holding {@link #lock()}, quiet or not. */
  public void runNow() throws IOException {
    lock.lock();
    try {
      merge.run();
    } finally {
      lock.unlock();
    }
  }

  /** Held while a quiet merge runs; an expunge of deleted entries takes it too. */
  public ReentrantLock lock() {
    return lock;
  }

  private void schedule(long delayNanos) {
    if (closed || !scheduled.compareAndSet(false, true)) {
      return;
    }
    try {
      thread.schedule(this::runIfQuiet, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      scheduled.set(false); // closing
    }
  }

  private void runIfQuiet() {
    scheduled.set(false);
    if (closed) {
      return;
    }
    long waited = nanoTime.getAsLong() - lastWriteNanos;
    if (waited < quietNanos) {
      schedule(quietNanos - waited);
      return;
    }
    lock.lock();
    try {
      if (!closed) {
        merge.run();
      }
    } catch (IOException | RuntimeException e) {
      // closed or swapped meanwhile, or the writer failed: its next write reports that
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops the checks; a merge under way finishes, or fails as its writer closes (the thread is not
   * interrupted).
   */
  @Override
  public void close() {
    closed = true;
    thread.shutdown();
  }

  /**
   * A segment's bytes less its deleted documents' share (the natural policy's own {@code size} may
   * not measure bytes at all).
   */
  static long liveBytes(SegmentCommitInfo info, MergePolicy.MergeContext context)
      throws IOException {
    int max = info.info.maxDoc();
    double live = max <= 0 ? 1 : 1 - (double) context.numDeletesToMerge(info) / max;
    return (long) (info.sizeInBytes() * Math.max(0, live));
  }

  /** The forced merges of a quiet index; every other kind of merge is the natural policy's. */
  private static final class SmallSegments extends FilterMergePolicy {

    SmallSegments(MergePolicy natural) {
      super(natural);
    }

    @Override
    public MergeSpecification findForcedMerges(
        SegmentInfos infos,
        int maxSegmentCount,
        Map<SegmentCommitInfo, Boolean> segmentsToMerge,
        MergeContext context)
        throws IOException {
      Set<SegmentCommitInfo> merging = context.getMergingSegments();
      List<SegmentCommitInfo> segments = new ArrayList<>();
      for (SegmentCommitInfo info : infos) {
        if (segmentsToMerge.containsKey(info) && !merging.contains(info)) {
          segments.add(info);
        }
      }
      if (segments.size() < 2) {
        return null;
      }
      Map<SegmentCommitInfo, Long> sizes = new HashMap<>();
      SegmentCommitInfo largestSegment = segments.get(0);
      for (SegmentCommitInfo info : segments) {
        sizes.put(info, liveBytes(info, context));
        if (sizes.get(info) > sizes.get(largestSegment)) {
          largestSegment = info;
        }
      }
      long largest = sizes.get(largestSegment);
      long rest = 0;
      List<SegmentCommitInfo> others = new ArrayList<>(); // in the index's order, as the documents
      for (SegmentCommitInfo info : segments) {
        if (info != largestSegment) {
          rest += sizes.get(info);
          others.add(info);
        }
      }
      List<SegmentCommitInfo> chosen;
      if (rest >= largest * FULL_MERGE_SHARE && largest + rest <= MAX_MERGE_BYTES) {
        chosen = segments;
      } else if (others.size() > 1 && rest <= MAX_MERGE_BYTES) {
        chosen = others;
      } else {
        return null;
      }
      MergeSpecification spec = new MergeSpecification();
      spec.add(new OneMerge(new ArrayList<>(chosen)));
      return spec;
    }
  }
}
