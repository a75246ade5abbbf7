/**
 * The adapters of {@code store=files}: Markdown files under the data directory written atomically
 * inside a path sandbox, a Lucene keyword index beside them, and conversation files.
 */
package dev.memstack.builtin.store.files;
