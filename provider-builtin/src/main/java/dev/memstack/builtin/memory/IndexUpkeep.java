package dev.memstack.builtin.memory;

import dev.memstack.builtin.store.Change;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.FileStamp;
import dev.memstack.builtin.store.KeywordIndex;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the keyword index and the prompt caches in step with the store: every commit is indexed and
 * refreshed, and on open the files changed behind the index's back are indexed again.
 */
final class IndexUpkeep {

  // the log lines are the memory's
  private static final Logger log = LoggerFactory.getLogger(WorkspaceMemory.class);

  private final KeywordIndex index;
  private final WorkspaceStore store;
  private final PromptBlocks prompts;

  IndexUpkeep(KeywordIndex index, WorkspaceStore store, PromptBlocks prompts) {
    this.index = index;
    this.store = store;
    this.prompts = prompts;
  }

  /** Indexes the changes of one commit to {@code bucket} (under the bucket's lock). */
  void committed(Bucket bucket, List<Change> changes) {
    boolean promptTouched = false;
    for (Change change : changes) {
      if (change.after() == null) {
        index.remove(bucket, change.path());
      } else if (change.content() != null) {
        FileEntry after = change.after();
        index.replace(
            bucket,
            change.path(),
            change.content(),
            stamp(after),
            after.updateTime(),
            WorkspaceRules.isCoreForSearch(change.path()));
      }
      prompts.fileChanged(bucket, change.path());
      promptTouched |= change.touchesEnabled();
    }
    index.refresh();
    if (promptTouched) {
      prompts.enabledFilesChanged(bucket);
    }
  }

  private static FileStamp stamp(FileEntry entry) {
    return new FileStamp(entry.size(), entry.updateTime().toEpochMilli());
  }

  /** Re-indexes files that changed since the index was last committed, drops files now gone. */
  void catchUp() {
    long started = System.nanoTime();
    Map<String, FileStamp> indexed = new HashMap<>(index.stamps());
    int reindexed = 0;
    for (Bucket bucket : store.buckets()) {
      for (FileEntry entry : store.list(bucket)) {
        String key = KeywordIndex.fileKey(bucket, entry.path());
        FileStamp known = indexed.remove(key);
        if (!stamp(entry).equals(known)) {
          Optional<String> content = store.read(bucket, entry.path());
          if (content.isPresent()) {
            index.replace(
                bucket,
                entry.path(),
                content.get(),
                stamp(entry),
                entry.updateTime(),
                WorkspaceRules.isCoreForSearch(entry.path()));
            reindexed++;
          }
        }
      }
    }
    for (String gone : indexed.keySet()) {
      index.removeByKey(gone);
    }
    if (reindexed > 0 || !indexed.isEmpty()) {
      index.refresh();
      index.commit();
      log.info(
          "keyword index brought up to date: {} files re-indexed, {} removed, in {} ms",
          reindexed,
          indexed.size(),
          (System.nanoTime() - started) / 1_000_000);
    }
  }
}
