/**
 * The one way the host calls a provider: the running members, class loader, deadline, breaker and
 * metrics around every call.
 */
package dev.memstack.host.provider;
