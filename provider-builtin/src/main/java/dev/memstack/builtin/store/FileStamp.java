package dev.memstack.builtin.store;

/**
 * What the index remembers of an indexed file's version, to tell at start whether the file changed
 * since: its size and modification time in milliseconds.
 */
public record FileStamp(long size, long modifiedMillis) {}
