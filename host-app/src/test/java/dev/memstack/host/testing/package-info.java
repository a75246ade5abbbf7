/**
 * The host tests' one fixture: the folders of a test host, the test embedder, an HTTP client and a
 * host started outside the test framework. Every host test builds its host from these, so a change
 * in how a host is set up is made here once.
 */
package dev.memstack.host.testing;
