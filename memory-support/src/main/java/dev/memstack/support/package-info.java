/**
 * Runtime helpers that provider plugins share: a {@link dev.memstack.support.CircuitBreaker}, the
 * tool-argument reader {@link dev.memstack.support.ToolArguments} and its errors ({@link
 * dev.memstack.support.ToolArgumentErrors}), and {@link dev.memstack.support.CoordinatedWork} over
 * the coordination port (schedule slots, waiting for a lock), and small checks ({@link
 * dev.memstack.support.Require}). Depends on the JDK, on {@code memory-spi} as {@code provided}
 * (the host supplies it) and, for {@code ToolArguments} only, on Jackson 3 as an optional
 * dependency that a plugin reading tool arguments bundles itself. Unlike {@code memory-spi}, this
 * library is bundled by each plugin that uses it (compile scope, so the plugin zip carries it in
 * {@code lib/}); only SPI types of it cross the host/plugin boundary.
 */
package dev.memstack.support;
