package dev.memstack.builtin.memory;

import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.KeywordHit;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.store.KeywordQuery;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import dev.memstack.spi.RecallItem;
import dev.memstack.spi.RecallRequest;
import dev.memstack.spi.RecallVector;
import dev.memstack.support.Decimals;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-turn recall and the search tool over the keyword index: the buckets an owner may see, the
 * files no prompt block already carries, and keyword hits as recall items. Thread-safe; its parts
 * are the memory's.
 */
record KeywordRecall(
    BuiltinSettings settings,
    DenseSettings dense,
    String source,
    Clock clock,
    WorkspaceStore store,
    KeywordIndex index,
    PromptBlocks prompts) {

  private static final Pattern ENTRY_TIME = Pattern.compile("^### (\\d{2}):(\\d{2}) ");

  /** The buckets {@code owner} may see in {@code agent}: GLOBAL, TEAM and their own PERSONAL. */
  List<Bucket> visibleBuckets(AgentId agent, OwnerKey owner) {
    List<Bucket> buckets = new ArrayList<>(List.of(Bucket.team(agent), Bucket.global()));
    if (owner != null && settings.perOwner()) {
      buckets.add(0, Bucket.personal(agent, owner));
    }
    return buckets;
  }

  /** Keyword recall for a turn (see {@link WorkspaceMemory#prefetch}). */
  Recall prefetch(RecallRequest request) {
    if (request.query().isBlank()) {
      return Recall.empty();
    }
    OwnerKey owner = request.owner();
    Set<String> excluded = prompts.shownWhole(request.agent(), owner);
    List<Bucket> buckets = visibleBuckets(request.agent(), owner);
    for (Bucket bucket : buckets) {
      for (String name : WorkspaceRules.CORE_FILES) {
        WorkspacePath path = WorkspacePath.of(name);
        Optional<FileEntry> entry = store.entry(bucket, path);
        if (entry.isPresent()
            && prompts.isTemplate(path, prompts.enabledContent(bucket, entry.get()))) {
          excluded.add(KeywordIndex.fileKey(bucket, path));
        }
      }
    }
    boolean hybrid = dense.searched() && index.dense();
    // hybrid: a floor of candidates per search, so that an item's place does not depend on how
    // many items were asked for
    int fetch = hybrid ? Math.max(request.limit(), dense.candidates()) : request.limit();
    List<KeywordHit> hits =
        index.search(
            new KeywordQuery(
                buckets,
                request.query(),
                fetch,
                settings.searchMaxFiles(),
                settings.coreFileWeight(),
                excluded,
                request.limit()));
    List<RecallItem> items = new ArrayList<>();
    if (hybrid) {
      List<KeywordHit> nearest = new ArrayList<>();
      for (KeywordHit hit : index.nearest(buckets, request.query(), fetch, excluded)) {
        if (hit.score() >= dense.threshold()) {
          nearest.add(hit);
        }
      }
      String model = request.vectors() ? index.denseModel() : null;
      for (HybridHits.Fused fused : HybridHits.fuse(hits, nearest, dense, request.limit())) {
        if (request.maySee(fused.hit().bucket().scope(), fused.hit().bucket().owner())) {
          RecallItem item = toItem(fused);
          float[] vector = fused.hit().vector();
          // the paragraph's vector travels with it, so the host can score it beside other
          // providers' items without embedding it again
          items.add(
              vector == null || model == null
                  ? item
                  : item.withVector(new RecallVector(model, vector)));
        }
      }
      return Recall.of(items);
    }
    for (KeywordHit hit : hits) {
      if (items.size() < request.limit()
          && request.maySee(hit.bucket().scope(), hit.bucket().owner())) {
        items.add(toItem(hit));
      }
    }
    items.sort(Comparator.comparingDouble(RecallItem::score).reversed());
    return Recall.of(items);
  }

  /** A hybrid hit as a recall item: the keyword item's metadata plus the fusion's signals. */
  private RecallItem toItem(HybridHits.Fused fused) {
    RecallItem item = toItem(fused.hit());
    Map<String, String> metadata = new LinkedHashMap<>(item.metadata());
    if (fused.keywordRank() == 0) {
      metadata.remove("keywordScore");
    } else {
      metadata.put("keywordRank", Integer.toString(fused.keywordRank()));
    }
    if (fused.denseRank() > 0) {
      metadata.put("denseRank", Integer.toString(fused.denseRank()));
      metadata.put("denseScore", Decimals.fourPlaces(fused.denseScore()));
    }
    if (fused.keywordLead()) {
      metadata.put("keywordLead", "true");
    }
    metadata.put("fused", Decimals.fourPlaces(fused.score()));
    return new RecallItem(
        item.text(),
        fused.score(),
        item.scope(),
        item.owner(),
        item.source(),
        item.createdAt(),
        metadata);
  }

  private RecallItem toItem(KeywordHit hit) {
    String name = displayName(hit.bucket(), hit.path());
    Map<String, String> metadata = new LinkedHashMap<>();
    metadata.put("kind", "keyword");
    metadata.put("file", hit.path().value());
    metadata.put("scope", hit.bucket().scopeName());
    metadata.put("line", Integer.toString(hit.line()));
    metadata.put("snippet", hit.snippet());
    metadata.put("keywordScore", Decimals.fourPlaces(hit.score()));
    metadata.put("weight", Double.toString(weight(hit.path())));
    return new RecallItem(
        name + " (line " + hit.line() + "):\n" + hit.text(),
        hit.score() / (hit.score() + 1.0),
        hit.bucket().scope(),
        hit.bucket().owner(),
        source,
        entryTime(hit),
        metadata);
  }

  /**
   * When the recalled text was said: a daily-note entry's own time (the note's day and the entry's
   * {@code ### HH:MM}, in the clock's zone), otherwise the file's update time.
   */
  private Instant entryTime(KeywordHit hit) {
    LocalDate day = hit.path().dailyNoteDate();
    if (day != null) {
      Matcher time = ENTRY_TIME.matcher(hit.text());
      if (time.find()) {
        int hour = Integer.parseInt(time.group(1));
        int minute = Integer.parseInt(time.group(2));
        if (hour < 24 && minute < 60) {
          return day.atTime(hour, minute).atZone(clock.getZone()).toInstant();
        }
      }
      return day.atStartOfDay(clock.getZone()).toInstant();
    }
    return hit.updateTime();
  }

  private static String displayName(Bucket bucket, WorkspacePath path) {
    return switch (bucket.scope()) {
      case GLOBAL -> "global/" + path.value();
      case TEAM -> path.value();
      case PERSONAL -> path.value() + " (personal)";
    };
  }

  /** Keyword search for the search tool. */
  List<KeywordHit> search(List<Bucket> buckets, String query, int limit) {
    return index.search(
        buckets, query, limit, settings.searchMaxFiles(), settings.coreFileWeight(), Set.of());
  }

  private double weight(WorkspacePath path) {
    return WorkspaceRules.isCoreForSearch(path) ? settings.coreFileWeight() : 1.0;
  }
}
