/**
 * The builtin provider's memory logic over the workspace store and the keyword index: seeding,
 * scopes, size caps, the system prompt block, per-turn recall, daily notes and snapshots.
 */
package dev.memstack.builtin.memory;
