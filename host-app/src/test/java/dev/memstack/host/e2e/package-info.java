/**
 * Acceptance tests of the issues' "done when" lists: the real plugin zips in a real host over HTTP,
 * with the default embedding model, the local PostgreSQL and a fake Mem0 server on loopback.
 */
package dev.memstack.host.e2e;
