/**
 * Workspace files, the keyword index, the change versions and the conversation buffer in PostgreSQL
 * ({@code config.store=postgres}), so that several hosts on one database see one workspace.
 */
package dev.memstack.builtin.postgres;
