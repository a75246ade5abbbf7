/**
 * Memory types: the built-in ones every agent has and the custom ones each agent adds, kept behind
 * {@link dev.memstack.vector.types.CustomTypeStore} beside the provider's store (a file for the
 * embedded store, a table for pgvector).
 */
package dev.memstack.vector.types;
