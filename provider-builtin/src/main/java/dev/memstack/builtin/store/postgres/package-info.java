/**
 * The adapters of {@code store=postgres}: workspace files, the keyword index, the change versions
 * and the conversation buffer as rows of one PostgreSQL database, so that several hosts see one
 * workspace.
 */
package dev.memstack.builtin.store.postgres;
