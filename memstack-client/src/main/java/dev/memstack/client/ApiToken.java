package dev.memstack.client;

import java.time.Instant;

/**
 * One API token as {@code GET /api/v1/tokens} lists it: never its secret.
 *
 * @param id a managed token's id, or a configured token's configuration key ({@code
 *     memstack.security.tokens[0]}; {@code api-token} for the generated admin token)
 * @param name what it is called
 * @param role {@code VIEWER}, {@code MEMBER} or {@code ADMIN}
 * @param owner its owner binding ({@code api:42}, {@code api:*}), or {@code null} for any owner
 * @param source {@code api} (made through the API, revocable) or {@code configuration}
 * @param createdAt when a managed token was made; {@code null} for a configured one
 * @param lastUsedAt when a host last accepted it (to the minute), or {@code null}
 */
public record ApiToken(
    String id,
    String name,
    String role,
    String owner,
    String source,
    Instant createdAt,
    Instant lastUsedAt) {}
