/**
 * The contradiction inbox over REST: an owner's open contradictions and their decisions, on the
 * standard tools of a provider that claims {@link dev.memstack.spi.Capability#CONTRADICTIONS}.
 */
package dev.memstack.host.inbox;
