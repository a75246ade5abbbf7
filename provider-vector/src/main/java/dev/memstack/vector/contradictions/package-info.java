/**
 * The contradiction inbox: a per-owner queue of statements that conflict with an active memory,
 * kept beside the store until the owner decides which one holds.
 */
package dev.memstack.vector.contradictions;
