package dev.memstack.host.window;

/** Token counts of a window's parts. */
public record Tokens(
    int system,
    int workspace,
    int summary,
    int recent,
    int current,
    int total,
    int budget,
    int trigger) {}
