/**
 * Runtime helpers that provider plugins share: a {@link dev.memstack.support.CircuitBreaker} and
 * the errors of tool-argument readers ({@link dev.memstack.support.ToolArgumentErrors}). Depends on
 * the JDK alone, and on {@code memory-spi} as {@code provided} (the host supplies it). Unlike
 * {@code memory-spi}, this library is bundled by each plugin that uses it (compile scope, so the
 * plugin zip carries it in {@code lib/}); only SPI types of it cross the host/plugin boundary.
 */
package dev.memstack.support;
