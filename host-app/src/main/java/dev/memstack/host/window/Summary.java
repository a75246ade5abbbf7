package dev.memstack.host.window;

/** The summary of earlier turns. */
public record Summary(String text, int coversTurns, int tokens, boolean cached) {}
