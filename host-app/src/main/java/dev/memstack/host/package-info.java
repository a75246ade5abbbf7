/**
 * The memstack host application: a Spring Boot app with one package per concern. {@code stack} is
 * the application API (request records, the one answer, turn intake); {@code api} (REST) and {@code
 * mcp} (MCP tools) are adapters over it that parse, authorise, call and render; {@code provider} is
 * how any of them calls a provider, {@code plugin} where providers come from, {@code conversation}
 * and the outbox where accepted turns go, {@code security} who may call, {@code model} the
 * embedding and language models behind the SPI ports.
 */
package dev.memstack.host;
