/**
 * Memories one by one over REST: list, count, read, edit, archive, suppress, activate, forget and
 * the history of a memory, on the standard tools of a provider that claims {@link
 * dev.memstack.spi.Capability#MEMORY_ADMIN}.
 */
package dev.memstack.host.items;
