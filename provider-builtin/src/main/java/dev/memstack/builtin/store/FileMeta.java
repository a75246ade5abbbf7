package dev.memstack.builtin.store;

/**
 * The metadata of a file that is not a property of its bytes: whether it is enabled and its sort
 * order. Kept in the bucket's metadata file beside the files.
 *
 * @param enabled whether the file is enabled
 * @param sortOrder position among enabled files
 */
public record FileMeta(boolean enabled, int sortOrder) {}
