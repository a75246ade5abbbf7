/**
 * Memory that maintains itself: post-turn extraction into PROFILE.md, MEMORY.md and daily notes,
 * and nightly dreaming that folds daily notes into MEMORY.md and keeps a DREAMS.md journal, both on
 * the host's chat model.
 */
package dev.memstack.builtin.extraction;
