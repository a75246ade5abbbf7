/**
 * The memstack provider SPI: what a memory provider plugin implements ({@link
 * dev.memstack.spi.MemoryProviderFactory}, {@link dev.memstack.spi.MemoryProvider}) and the values
 * and host ports it works with. Depends on nothing but the JDK and PF4J's {@code ExtensionPoint}.
 *
 * <p>Unless a type says otherwise, parameters and return values are never {@code null}.
 */
package dev.memstack.spi;
