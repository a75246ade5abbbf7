/**
 * Benchmarks of the pgvector store on synthetic vectors: filtered top-k latency and recall, the
 * query plans it chooses between, and approximate-search recall. Not run by the test suite.
 */
package dev.memstack.vector.pgvector.bench;
