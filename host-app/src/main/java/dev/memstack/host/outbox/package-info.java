/**
 * The durable turn outbox: an append-only, checksummed on-disk journal of accepted turns and owner
 * erasures with one delivery cursor and one delivery thread per provider, so that a turn the host
 * accepted reaches every provider even across a crash, and an erased owner's pending turns are not.
 */
package dev.memstack.host.outbox;
