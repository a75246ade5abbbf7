/**
 * The host's own gauges beside the provider call timers: the turn outbox backlog and the circuit
 * breakers of every configured provider, for {@code /actuator/metrics} and {@code
 * /actuator/prometheus}.
 */
package dev.memstack.host.metrics;
