/**
 * The host tests' one fixture: the folders of a test host, the test embedder, an HTTP client, a
 * host started outside the test framework (as a class extension or by hand), a changeable stack of
 * test providers ({@link dev.memstack.host.testing.TestMembers}), callers that keep calling while
 * something changes under them ({@link dev.memstack.host.testing.Concurrently}) and the fake
 * servers' loopback sockets. Every host test builds its host from these, so a change in how a host
 * is set up is made here once.
 */
package dev.memstack.host.testing;
