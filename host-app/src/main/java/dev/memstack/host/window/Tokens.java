package dev.memstack.host.window;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The tokens of each part of a window, framing included.
 *
 * @param system the system prompt
 * @param workspace the workspace files
 * @param summary the summary
 * @param recent the recent messages
 * @param current the current user message
 * @param total all of them
 * @param budget the most tokens the request may take
 * @param trigger the count past which older turns are summarised
 */
@Schema(name = "WindowTokens")
public record Tokens(
    int system,
    int workspace,
    int summary,
    int recent,
    int current,
    int total,
    int budget,
    int trigger) {}
