package dev.memstack.builtin.store;

import dev.memstack.builtin.workspace.WorkspacePath;
import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;

/**
 * What is known about one workspace file without reading it.
 *
 * @param path the name within its bucket
 * @param enabled whether the file goes into the system prompt (TEAM, GLOBAL) or into every recall
 *     (PERSONAL)
 * @param sortOrder position among enabled files, ascending
 * @param size bytes on disk (UTF-8)
 * @param updateTime when the content last changed
 */
public record FileEntry(
    WorkspacePath path, boolean enabled, int sortOrder, long size, Instant updateTime) {

  public FileEntry {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(updateTime, "updateTime");
  }

  /** The listing order of a bucket's files: sort order, then path. */
  public static final Comparator<FileEntry> ORDER =
      Comparator.comparingInt(FileEntry::sortOrder).thenComparing(FileEntry::path);
}
