package dev.memstack.builtin.store.files;

import dev.memstack.builtin.store.FileEntry;

/**
 * What the index remembers of an indexed file's version, to tell at start whether the file changed
 * since: its size and modification time in milliseconds.
 */
public record FileStamp(long size, long modifiedMillis) {

  /** The stamp of a store's file: its size and update time. */
  public static FileStamp of(FileEntry entry) {
    return new FileStamp(entry.size(), entry.updateTime().toEpochMilli());
  }
}
