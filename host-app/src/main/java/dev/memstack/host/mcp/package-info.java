/**
 * The MCP server of the host: streamable HTTP at {@code /mcp} with the memory tools ({@code
 * memory_context}, {@code memory_remember} and every provider tool). An adapter beside the REST
 * routes, never over them: the handlers ({@code McpToolCalls}) run as the bearer token's caller and
 * call the stack and the tool service, reading arguments and reporting errors by the REST API's
 * rules, so a tool and a route answer alike.
 */
package dev.memstack.host.mcp;
