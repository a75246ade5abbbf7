/**
 * Structured consolidation of the typed memories: per owner and type, the chat model merges
 * near-duplicate and outdated memories, never into more than it was given ({@link
 * dev.memstack.vector.consolidation.TypedConsolidation}).
 */
package dev.memstack.vector.consolidation;
