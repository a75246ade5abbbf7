package dev.memstack.builtin.store;

import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.util.Objects;

/**
 * One committed change of one file.
 *
 * @param bucket the bucket
 * @param path the file
 * @param before the entry before, {@code null} when the file was created
 * @param after the entry after, {@code null} when the file was removed
 * @param content the new content; {@code null} when only metadata changed or the file was removed
 */
public record Change(
    Bucket bucket, WorkspacePath path, FileEntry before, FileEntry after, String content) {

  public Change {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(path, "path");
  }

  /** Whether the file's bytes changed (created, rewritten or removed). */
  public boolean contentChanged() {
    return content != null || after == null;
  }

  /** Whether the file was enabled before or after the change. */
  public boolean touchesEnabled() {
    return (before != null && before.enabled()) || (after != null && after.enabled());
  }
}
