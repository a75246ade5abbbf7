/**
 * Long-term memory from a memstack host for a Spring AI {@code ChatClient}: {@link
 * dev.memstack.springai.MemstackAdvisor} asks the host for context before the model runs and hands
 * in the turn after it answered.
 */
package dev.memstack.springai;
