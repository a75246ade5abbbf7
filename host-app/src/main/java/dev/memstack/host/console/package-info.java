/**
 * The admin API behind the memory console: the owners of an agent with their counts per provider,
 * and an agent's or an owner's statistics with the samples of the last hour that a host job takes.
 */
package dev.memstack.host.console;
