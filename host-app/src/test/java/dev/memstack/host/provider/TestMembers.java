package dev.memstack.host.provider;

/**
 * The host tests' {@link dev.memstack.host.testing.TestMembers} under this package's name, for the
 * call path's tests.
 */
final class TestMembers extends dev.memstack.host.testing.TestMembers {}
