/**
 * Typed facts from turns: a chat model extracts facts, decisions, preferences, task progress and
 * references for the owner and consolidates each with the owner's nearest existing facts.
 */
package dev.memstack.vector.facts;
