package dev.memstack.host.window;

/** One message of a window. */
public record WindowMessage(String role, String kind, String content, int tokens) {}
