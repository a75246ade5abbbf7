/**
 * Runtime helpers that provider plugins share, such as a {@link
 * dev.memstack.support.CircuitBreaker}. Depends on the JDK alone. Unlike {@code memory-spi}, which
 * the host provides, this library is bundled by each plugin that uses it (compile scope, so the
 * plugin zip carries it in {@code lib/}); its types never cross the host/plugin boundary.
 */
package dev.memstack.support;
