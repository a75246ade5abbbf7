/**
 * Who may call the host: bearer tokens with a role and an optional owner binding, checked by a
 * servlet filter (401), a per-route role rule (403) and an {@link
 * dev.memstack.host.security.AccessPolicy} the controllers ask about the owner a request is for.
 */
package dev.memstack.host.security;
