package dev.memstack.host.window;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * One message of a window.
 *
 * @param role {@code system}, {@code user} or {@code assistant}
 * @param kind {@code system}, {@code workspace}, {@code summary}, {@code turn} or {@code current}
 * @param content the text to send
 * @param tokens its tokens, framing included
 */
@Schema(name = "WindowMessage")
public record WindowMessage(String role, String kind, String content, int tokens) {}
