/**
 * The REST API ({@code /api/v1}, JSON; reference in {@code docs/rest-api.md}), its error shape and
 * body size limit, and the {@code providers} component of {@code /actuator/health}.
 */
package dev.memstack.host.api;
