package dev.memstack.builtin.memory;

import dev.memstack.builtin.store.FileMeta;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.util.List;
import java.util.Set;

/**
 * The seeds' rules about file names: the four core files and their order, which files a new owner
 * keeps personally, which files snapshots carry, and how search weighs them.
 */
public final class WorkspaceRules {

  /** The core files, seeded enabled in this order (sort order 0 to 3). */
  public static final List<String> CORE_FILES =
      List.of("AGENTS.md", "SOUL.md", "PROFILE.md", "MEMORY.md");

  /** The sort order of files that are not core files. */
  public static final int DEFAULT_SORT_ORDER = 100;

  /** Root files a snapshot carries, beside the daily notes. */
  public static final Set<String> SNAPSHOT_FILES =
      Set.of("AGENTS.md", "MEMORY.md", "PROFILE.md", "SOUL.md", "KNOWLEDGE.md");

  private static final Set<String> WEIGHTED_FILES =
      Set.of("AGENTS.md", "SOUL.md", "PROFILE.md", "MEMORY.md", "KNOWLEDGE.md");

  private WorkspaceRules() {}

  /**
   * The metadata a file gets when it is created: core files enabled at their position, everything
   * else disabled (as the seeds create new files).
   */
  public static FileMeta metaForNewFile(WorkspacePath path) {
    int core = path.atRoot() ? CORE_FILES.indexOf(path.value()) : -1;
    return core >= 0 ? new FileMeta(true, core) : new FileMeta(false, DEFAULT_SORT_ORDER);
  }

  /** Whether a file is one an owner keeps personally when per-owner memory is on. */
  public static boolean isPersonalKind(WorkspacePath path) {
    return path.value().equals("PROFILE.md")
        || path.value().equals("MEMORY.md")
        || path.isDailyNote();
  }

  /** Whether a snapshot carries the file. */
  public static boolean inSnapshot(WorkspacePath path) {
    return (path.atRoot() && SNAPSHOT_FILES.contains(path.value())) || path.isDailyNote();
  }

  /** Whether search hits in the file weigh more. */
  public static boolean isCoreForSearch(WorkspacePath path) {
    return path.atRoot() && WEIGHTED_FILES.contains(path.value());
  }
}
