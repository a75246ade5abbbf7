package dev.memstack.client;

/**
 * What the client's own token may do, as {@code GET /api/v1/whoami} answers.
 *
 * @param name the token's name (a configured token's configuration key)
 * @param role {@code VIEWER}, {@code MEMBER} or {@code ADMIN}
 * @param owner its owner binding, or {@code null} for any owner
 * @param source {@code api} or {@code configuration}
 */
public record WhoAmI(String name, String role, String owner, String source) {}
