package dev.memstack.vector;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Scope;
import dev.memstack.vector.store.MemoryFilters;
import dev.memstack.vector.store.MemoryRecord;
import dev.memstack.vector.store.MemoryStatus;
import dev.memstack.vector.store.MemoryVectorStore;
import dev.memstack.vector.store.Trust;
import dev.memstack.vector.store.TrustChange;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.ai.document.Document;

/**
 * An owner's trust in the records they recalled, both ways: {@link #used} raises it, {@link #wrong}
 * lowers it, each one atomic store update per record ({@link MemoryVectorStore#addTrust}) of the
 * owner's own row ({@link Trust}: counts and a trust that fades with {@code trust-half-life-days}),
 * so nothing one owner does changes another owner's rows, shared records included. A record the
 * owner marked wrong {@code wrong-suppress-count} times is suppressed for them ({@link #suppress}):
 * never deleted. Ids the owner may not see ({@link VectorMemoryProvider#visible}) or that do not
 * exist are ignored, and an id given twice in one call counts once. Thread-safe.
 */
record VectorTrust(MemoryVectorStore store, TrustSettings settings, Clock clock) {

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(VectorTrust.class);

  /**
   * The owner's trust now in each of {@code ids} that has a row ({@link Trust#value}, in (−1, 1));
   * the others are absent.
   */
  Map<String, Double> values(OwnerKey owner, Collection<String> ids) {
    Map<String, Double> values = new LinkedHashMap<>();
    if (ids.isEmpty()) {
      return values;
    }
    long now = clock.millis();
    store
        .trust(owner, ids)
        .forEach((id, row) -> values.put(id, row.value(now, settings.halfLife())));
    return values;
  }

  /** The owner used the records; how many were applied. */
  int used(AgentId agent, OwnerKey owner, List<String> ids) {
    Map<String, MemoryRecord> allowed = visible(agent, owner, ids);
    if (allowed.isEmpty()) {
      return 0;
    }
    TrustChange change = TrustChange.used(clock.instant(), settings.halfLife());
    return store.addTrust(owner, allowed.keySet(), change).size();
  }

  /**
   * The owner marked the records wrong; how many were applied. Each record whose wrong count for
   * the owner has reached {@code wrong-suppress-count} is suppressed for them if it is not yet.
   */
  int wrong(AgentId agent, OwnerKey owner, List<String> ids) {
    Map<String, MemoryRecord> allowed = visible(agent, owner, ids);
    if (allowed.isEmpty()) {
      return 0;
    }
    TrustChange change = TrustChange.wrong(clock.instant(), settings.halfLife());
    Map<String, Trust> rows = store.addTrust(owner, allowed.keySet(), change);
    rows.forEach((id, row) -> recordWrong(allowed.get(id), row));
    if (settings.suppressCount() > 0) {
      rows.forEach(
          (id, row) -> {
            if (row.wrongs() >= settings.suppressCount()) {
              suppress(owner, allowed.get(id), row);
            }
          });
    }
    return rows.size();
  }

  /**
   * Suppresses a record for an owner who marked it wrong {@code row.wrongs()} times, if it is not
   * yet: the owner's own PERSONAL record gets status SUPPRESSED (kept, never deleted, and listed
   * and restorable like any other status); a TEAM or GLOBAL record is hidden from this owner's
   * recall only ({@link MemoryVectorStore#hide}), and every other owner still recalls it. A
   * PERSONAL record that is not ACTIVE (archived, superseded, already suppressed) keeps its status.
   *
   * <p>The one place a record is suppressed for being wrong: a memory history records here that it
   * was "suppressed: marked wrong N times" (N = {@code row.wrongs()}).
   */
  private void suppress(OwnerKey owner, MemoryRecord record, Trust row) {
    if (record.scope() == Scope.PERSONAL) {
      if (record.status() != MemoryStatus.ACTIVE) {
        return;
      }
      java.time.Instant now = clock.instant();
      store.updateMetadata(
          record.id(),
          Map.of(
              MemoryVectorStore.STATUS,
              MemoryStatus.SUPPRESSED.name(),
              MemoryAdminTools.UPDATED_AT,
              Math.max(now.toEpochMilli(), MemoryAdminTools.updatedAt(record).toEpochMilli() + 1)));
      history(
          record,
          "status",
          Map.of(
              "status",
              "suppressed",
              "previousStatus",
              "active",
              "reason",
              "marked wrong " + row.wrongs() + " times"));
    } else {
      if (row.hidden()) {
        return;
      }
      store.hide(owner, record.id(), true);
    }
    log.debug(
        "record {} suppressed for an owner: marked wrong {} times", record.id(), row.wrongs());
  }

  /**
   * The history of the owner's own PERSONAL record says it was marked wrong, with the trust after
   * it. A shared record's history, which every owner of the agent may read, says nothing of one
   * owner's judgement.
   */
  private void recordWrong(MemoryRecord record, Trust row) {
    if (record != null && record.scope() == Scope.PERSONAL) {
      history(
          record,
          "trust",
          Map.of(
              "reason",
              "marked wrong (" + row.wrongs() + " in all)",
              "trust",
              String.format(
                  java.util.Locale.ROOT, "%.3f", row.value(clock.millis(), settings.halfLife()))));
    }
  }

  private void history(MemoryRecord record, String event, Map<String, String> details) {
    store.history().record(record, clock.instant(), event, null, details);
  }

  /** The stored records among {@code ids} that the owner may see, by id, in the order given. */
  private Map<String, MemoryRecord> visible(AgentId agent, OwnerKey owner, List<String> ids) {
    Set<String> distinct = new LinkedHashSet<>(ids);
    if (distinct.isEmpty()) {
      return Map.of();
    }
    Map<String, MemoryRecord> found = new LinkedHashMap<>();
    for (Document doc :
        store.list(
            MemoryFilters.in(MemoryVectorStore.ID, new ArrayList<>(distinct)),
            0,
            distinct.size())) {
      MemoryRecord record = MemoryRecord.fromDocument(doc);
      if (VectorMemoryProvider.visible(record, agent, owner)) {
        found.put(record.id(), record);
      }
    }
    // in the order asked, each once
    Map<String, MemoryRecord> ordered = new LinkedHashMap<>();
    distinct.stream().filter(found::containsKey).forEach(id -> ordered.put(id, found.get(id)));
    return ordered;
  }
}
