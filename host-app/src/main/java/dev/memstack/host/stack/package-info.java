/**
 * The memory stack: asks every enabled provider for its system-prompt block and its recall under
 * deadlines and circuit breakers, fences the result for the model, and hands finished turns to
 * every provider off the request path.
 */
package dev.memstack.host.stack;
