/**
 * The {@code vector} memory provider: semantic recall per owner on a Spring AI vector store, an
 * embedded Lucene index by default or PostgreSQL with pgvector.
 */
package dev.memstack.vector;
