/**
 * The PostgreSQL + pgvector memory store: Spring AI's pgvector table design plus real, indexed
 * isolation columns, so an owner's search is exact instead of a post-filtered approximate top-k.
 */
package dev.memstack.vector.pgvector;
