/**
 * The builtin provider's agent-callable tools: JSON in, JSON out, with the shapes of the seeds'
 * {@code WorkspaceMemoryTool}, plus metadata and snapshot tools for the host's REST routes.
 */
package dev.memstack.builtin.tools;
