package dev.memstack.builtin.store;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.Scope;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What every {@link WorkspaceStore} does alike, whatever its storage. */
public final class StoreRules {

  /** The directory of an agent's owners' PERSONAL buckets: reserved in the agent's TEAM bucket. */
  public static final String OWNERS_DIR = "owners";

  private static final Logger log = LoggerFactory.getLogger(StoreRules.class);

  private StoreRules() {}

  /**
   * Refuses {@code owners/...} in a TEAM bucket, where the owners' files would be.
   *
   * @throws InvalidWorkspacePathException if the name is reserved
   */
  public static void checkNotReserved(Bucket bucket, WorkspacePath path) {
    if (bucket.scope() == Scope.TEAM
        && !path.atRoot()
        && path.segments().get(0).equals(OWNERS_DIR)) {
      throw new InvalidWorkspacePathException(
          "must not start with '" + OWNERS_DIR + "/' in team scope (reserved for personal files)");
    }
  }

  /** The changes of removing {@code entries}, the files of {@code bucket}. */
  public static List<Change> removed(Bucket bucket, Collection<FileEntry> entries) {
    return entries.stream().map(e -> new Change(bucket, e.path(), e, null, null)).toList();
  }

  /**
   * Tells {@code listener} about the changes of one commit, if there are any; a listener that
   * throws is logged, never passed on: the commit stands.
   */
  public static void tell(ChangeListener listener, Bucket bucket, List<Change> changes) {
    if (changes.isEmpty()) {
      return;
    }
    try {
      listener.committed(bucket, List.copyOf(changes));
    } catch (RuntimeException e) {
      log.error("a listener failed after a commit to {}", bucket, e);
    }
  }
}
