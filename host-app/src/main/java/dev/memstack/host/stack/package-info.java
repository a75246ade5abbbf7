/**
 * The memory stack, which assembles what the providers contribute to one agent turn: {@link
 * dev.memstack.host.stack.MemoryStack} asks every enabled provider for its system-prompt block, the
 * owner's standing memory and its recall (through the request calls of {@code
 * dev.memstack.host.provider}, under deadlines and circuit breakers), joins the prompt blocks
 * (cached by {@link dev.memstack.host.stack.SystemPromptCache}), merges the recall ({@code
 * RecallMerge}: visibility, weighted rank fusion, folding of copies, the char budget), fences the
 * result for the model ({@link dev.memstack.host.stack.MemoryContextFence}) and hands finished
 * turns to the turn outbox off the request path. {@link dev.memstack.host.stack.StackProperties}
 * holds {@code memstack.stack.*}; {@link dev.memstack.host.stack.StackConfiguration} builds the
 * beans.
 */
package dev.memstack.host.stack;
