/**
 * The store contract of the vector provider ({@link dev.memstack.vector.store.MemoryVectorStore}, a
 * Spring AI {@code VectorStore} with real isolation fields) and the helpers every store shares:
 * record mapping, filter translation, the embedder adapter.
 */
package dev.memstack.vector.store;
