/**
 * The lifecycle loop over REST: dreaming reports, the morning card and the owner's answers to it,
 * focused dreams and structured consolidation, on the standard tools of a provider that claims
 * {@link dev.memstack.spi.Capability#LIFECYCLE}.
 */
package dev.memstack.host.lifecycle;
