package dev.memstack.builtin.store.files;

import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/** An immutable snapshot of a bucket; {@code sorted} is the listing order, computed once. */
record BucketState(
    NavigableMap<WorkspacePath, FileEntry> files, boolean seeded, List<FileEntry> sorted) {

  static final BucketState EMPTY = of(new TreeMap<>(), false);

  static BucketState of(NavigableMap<WorkspacePath, FileEntry> files, boolean seeded) {
    List<FileEntry> sorted = new ArrayList<>(files.values());
    sorted.sort(FileEntry.ORDER);
    return new BucketState(
        Collections.unmodifiableNavigableMap(files), seeded, List.copyOf(sorted));
  }
}
