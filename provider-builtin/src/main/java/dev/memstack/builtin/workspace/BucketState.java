package dev.memstack.builtin.workspace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/** An immutable snapshot of a bucket; {@code sorted} is the listing order, computed once. */
record BucketState(
    NavigableMap<WorkspacePath, FileEntry> files, boolean seeded, List<FileEntry> sorted) {

  /** The listing order: sort order, then path. */
  static final Comparator<FileEntry> ORDER =
      Comparator.comparingInt(FileEntry::sortOrder).thenComparing(FileEntry::path);

  static final BucketState EMPTY = of(new TreeMap<>(), false);

  static BucketState of(NavigableMap<WorkspacePath, FileEntry> files, boolean seeded) {
    List<FileEntry> sorted = new ArrayList<>(files.values());
    sorted.sort(ORDER);
    return new BucketState(
        Collections.unmodifiableNavigableMap(files), seeded, List.copyOf(sorted));
  }
}
