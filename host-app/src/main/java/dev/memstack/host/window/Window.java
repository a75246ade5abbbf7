package dev.memstack.host.window;

import java.util.List;

/** A window. */
public record Window(
    List<WindowMessage> messages,
    Tokens tokens,
    String counter,
    boolean compacted,
    Summary summary,
    String mode) {}
