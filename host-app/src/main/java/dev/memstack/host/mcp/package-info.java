/**
 * The MCP server of the host: streamable HTTP at {@code /mcp} with the memory tools ({@code
 * memory_context}, {@code memory_remember} and every provider tool), called as the bearer token's
 * caller through the REST API's own code.
 */
package dev.memstack.host.mcp;
