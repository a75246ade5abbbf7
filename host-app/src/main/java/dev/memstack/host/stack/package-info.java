/**
 * The memory stack, the host's one application API: the REST routes, the MCP tools and every later
 * adapter (a chat endpoint, a console) call {@link dev.memstack.host.stack.MemoryStack} with its
 * request records ({@link dev.memstack.host.stack.ContextQuery}, {@link
 * dev.memstack.host.stack.TurnRequest}), which check every field once in their compact constructors
 * and name the field at fault ({@link dev.memstack.host.stack.InvalidRequestException}), and render
 * its answer ({@link dev.memstack.host.stack.ContextAnswer}) as it is. The stack asks every enabled
 * provider for its system-prompt block, the owner's standing memory and its recall (through the
 * request calls of {@code dev.memstack.host.provider}, under deadlines and circuit breakers), joins
 * the prompt blocks (cached by {@link dev.memstack.host.stack.SystemPromptCache}), merges the
 * recall ({@code RecallMerge}: visibility, weighted rank fusion, folding of copies, the char
 * budget), fences the result for the model ({@link dev.memstack.host.stack.MemoryContextFence}),
 * and builds the one {@link dev.memstack.spi.Turn} of an accepted turn, which it hands to the turn
 * outbox off the request path and records in the conversation log. {@link
 * dev.memstack.host.stack.StackProperties} holds {@code memstack.stack.*}; {@link
 * dev.memstack.host.stack.StackConfiguration} builds the beans.
 */
package dev.memstack.host.stack;
