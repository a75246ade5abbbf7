package dev.memstack.vector.lifecycle;

import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;

/**
 * The nightly decay over a {@link MemoryVectorStore}: every ACTIVE record with lifecycle metadata
 * loses weight by its importance's daily factor, once per full day since its decay was last applied
 * (purely by time: recall does not postpone it); one whose weight falls below {@value
 * Lifecycle#ARCHIVE_BELOW} becomes ARCHIVED, kept and recoverable but out of recall. Runs missed
 * (the host was down) catch up on the next run. Not thread-safe against itself: run it on one
 * thread.
 */
public final class DecayJob {

  private static final Logger LOG = LoggerFactory.getLogger(DecayJob.class);
  private static final long DAY = Duration.ofDays(1).toMillis();
  private static final int PAGE = 500;

  /** What one run did. */
  public record Report(long scanned, long decayed, long archived) {}

  private final MemoryVectorStore store;
  private final Clock clock;

  public DecayJob(MemoryVectorStore store, Clock clock) {
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Applies the decay that is due now. */
  public Report run() {
    long now = clock.millis();
    Filter.Expression active =
        MemoryFilters.eq(MemoryVectorStore.STATUS, MemoryStatus.ACTIVE.name());
    // collect first: archiving changes which records the ACTIVE filter pages over
    Map<String, Map<String, Object>> changes = new LinkedHashMap<>();
    long scanned = 0;
    for (int offset = 0; ; offset += PAGE) {
      List<Document> page = store.list(active, offset, PAGE);
      for (Document doc : page) {
        scanned++;
        Map<String, Object> change = decay(doc.getMetadata(), now);
        if (change != null) {
          changes.put(doc.getId(), change);
        }
      }
      if (page.size() < PAGE) {
        break;
      }
    }
    long archived = 0;
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, Map<String, Object>> e : changes.entrySet()) {
      if (!store.updateMetadata(e.getKey(), e.getValue())) {
        missing.add(e.getKey());
      } else if (e.getValue().containsKey(MemoryVectorStore.STATUS)) {
        archived++;
      }
    }
    Report report = new Report(scanned, changes.size() - missing.size(), archived);
    LOG.info(
        "memory decay: {} active records, {} decayed, {} archived",
        scanned,
        report.decayed(),
        archived);
    return report;
  }

  /** The metadata changes decay makes to one record now, or {@code null} for none. */
  static Map<String, Object> decay(Map<String, Object> metadata, long now) {
    if (!Lifecycle.tracked(metadata)) {
      return null;
    }
    Importance importance = Importance.parse(metadata.get(Lifecycle.IMPORTANCE), Importance.NORMAL);
    long created = Lifecycle.longValue(metadata.get(MemoryVectorStore.CREATED_AT), now);
    long decayedAt = Lifecycle.longValue(metadata.get(Lifecycle.DECAYED_AT), created);
    long from = decayedAt;
    long days = (now - from) / DAY;
    if (days < 1) {
      return null;
    }
    double weight = Lifecycle.weight(metadata) * Math.pow(importance.dailyRetention(), days);
    Map<String, Object> change = new LinkedHashMap<>();
    change.put(Lifecycle.WEIGHT, Math.round(weight * 1e6) / 1e6);
    change.put(Lifecycle.DECAYED_AT, from + days * DAY);
    if (weight < Lifecycle.ARCHIVE_BELOW) {
      change.put(MemoryVectorStore.STATUS, MemoryStatus.ARCHIVED.name());
      change.put(Lifecycle.ARCHIVED_BY, "decay");
    }
    return change;
  }
}
