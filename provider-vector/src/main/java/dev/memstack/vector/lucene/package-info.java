/**
 * The embedded memory store on Apache Lucene: HNSW vectors, BM25 text and keyword fields for the
 * isolation filters, in a durable directory under the provider's data directory.
 */
package dev.memstack.vector.lucene;
