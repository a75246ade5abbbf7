/**
 * Workspace files, the keyword index and the change versions in PostgreSQL ({@code
 * config.store=postgres}), so that several hosts on one database see one workspace.
 */
package dev.memstack.builtin.postgres;
