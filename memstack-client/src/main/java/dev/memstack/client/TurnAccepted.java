package dev.memstack.client;

/**
 * The host accepted a turn (202); delivery to its providers happens in the background.
 *
 * @param turnId the turn's id, given or generated
 */
public record TurnAccepted(String turnId) {}
