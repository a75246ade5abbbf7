/**
 * A small Java client of the memstack REST API: {@link dev.memstack.client.MemstackClient} with
 * typed records for the context call, turns, tools and owner erasure, and exceptions that carry the
 * host's HTTP status and JSON error.
 */
package dev.memstack.client;
