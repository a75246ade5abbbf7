package dev.memstack.builtin.memory;

import dev.memstack.builtin.store.BucketTransaction;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Scope;
import java.util.function.Function;

/**
 * Seeds an agent's core files from the templates, once, on first use, and runs the memory's
 * transactions so that a TEAM bucket is seeded inside the same transaction and the structured
 * entries the work adds or drops are logged in the same transaction ({@link MemoryItems#recorded}).
 * Thread-safe.
 */
final class CoreFileSeeder {

  private final WorkspaceStore store;
  private final Templates templates;

  CoreFileSeeder(WorkspaceStore store, Templates templates) {
    this.store = store;
    this.templates = templates;
  }

  /** Creates the agent's core files from the templates, once, on first use. */
  void ensureAgent(AgentId agent) {
    Bucket team = Bucket.team(agent);
    if (store.seeded(team)) {
      return;
    }
    store.update(
        team,
        tx -> {
          seed(tx);
          return null;
        });
  }

  private void seed(BucketTransaction tx) {
    if (tx.bucket().scope() != Scope.TEAM || tx.seeded()) {
      return;
    }
    for (String name : WorkspaceRules.CORE_FILES) {
      WorkspacePath path = WorkspacePath.of(name);
      if (tx.entry(path).isEmpty()) {
        tx.write(path, templates.get(name), WorkspaceRules.metaForNewFile(path));
      }
    }
    tx.markSeeded();
  }

  /**
   * Runs {@code work} on {@code bucket} in one transaction; a TEAM bucket is seeded inside the same
   * transaction, so a call that fails leaves even a never-used agent untouched, and the entries the
   * work adds to or drops from {@code PROFILE.md} and {@code MEMORY.md} go into their history.
   */
  <T> T update(Bucket bucket, Function<BucketTransaction, T> work) {
    return store.update(
        bucket,
        tx -> {
          seed(tx);
          return MemoryItems.recorded(tx, templates, work);
        });
  }

  /**
   * As {@link #update}, fenced against the owner's erasure ({@link WorkspaceStore#updateFenced}).
   */
  <T> T updateFenced(Bucket bucket, long seen, Function<BucketTransaction, T> work) {
    return store.updateFenced(
        bucket,
        seen,
        tx -> {
          seed(tx);
          return MemoryItems.recorded(tx, templates, work);
        });
  }
}
