package dev.memstack.host.window;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The summary of the older turns, sent as a user message starting with {@link
 * Windows#SUMMARY_PREFIX}.
 *
 * @param text the summary (without the prefix)
 * @param coversTurns how many turns it covers
 * @param tokens its tokens, the prefix and framing included
 * @param cached whether it came from the summary cache (the model was not asked)
 */
@Schema(name = "WindowSummary")
public record Summary(String text, int coversTurns, int tokens, boolean cached) {}
