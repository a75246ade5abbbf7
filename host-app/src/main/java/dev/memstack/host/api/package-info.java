/**
 * The REST API ({@code /api/v1}, JSON; reference in {@code docs/rest-api.md}): thin controllers, an
 * adapter over the stack's application API. A controller parses its path and body ({@link
 * dev.memstack.host.api.JsonBody}, {@link dev.memstack.host.api.MemoryRequests} for the memory
 * calls, which MCP shares), authorises the caller, calls the stack or the tool service ({@link
 * dev.memstack.host.api.ToolInvoker}) and renders the answer. Also here: the request body records
 * the OpenAPI document shows ({@link dev.memstack.host.api.ApiRequests}), the one error shape
 * ({@link dev.memstack.host.api.ApiError}, {@link dev.memstack.host.api.ApiExceptionHandler}, which
 * MCP reuses), the body size limit and the {@code providers} component of {@code /actuator/health}.
 */
package dev.memstack.host.api;
