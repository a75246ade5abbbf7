/**
 * Keyword search over workspace files with Apache Lucene: BM25 over paragraph chunks, CJK text as
 * two-character windows, filtered to the buckets a caller may see.
 */
package dev.memstack.builtin;
