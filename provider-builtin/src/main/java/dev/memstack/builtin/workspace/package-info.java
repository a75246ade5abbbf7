/**
 * Workspace files on disk: validated relative file names, the buckets they live in (TEAM, PERSONAL,
 * GLOBAL), and a store that writes them atomically inside a path sandbox.
 */
package dev.memstack.builtin;
