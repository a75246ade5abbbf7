/**
 * Workspace names: validated relative file names ({@code WorkspacePath}) and the buckets files live
 * in (TEAM, PERSONAL, GLOBAL); no storage.
 */
package dev.memstack.builtin.workspace;
