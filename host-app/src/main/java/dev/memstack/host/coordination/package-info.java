/**
 * How provider instances on several hosts act as one: the {@link dev.memstack.spi.Coordination}
 * each instance gets (in process, or on the shared database in shared mode) and the invalidation of
 * the hosts' system-prompt caches.
 */
package dev.memstack.host.coordination;
