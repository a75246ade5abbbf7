/**
 * Shared mode: the one PostgreSQL database ({@code memstack.shared.jdbc-url}) that holds the state
 * of every host of a deployment, its connection pool and its versioned schema steps.
 */
package dev.memstack.host.shared;
