/**
 * The builtin memory provider plugin: workspace-file memory (AGENTS, SOUL, PROFILE, MEMORY.md and
 * daily notes) per agent and per owner, with keyword recall and agent-callable file tools.
 */
package dev.memstack.builtin;
