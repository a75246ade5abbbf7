package dev.memstack.vector.facts;

import dev.memstack.support.Require;
import dev.memstack.vector.lifecycle.Importance;
import java.util.Set;

/**
 * One fact the model found in a turn.
 *
 * @param type FACT, DECISION, PREFERENCE, TASK_PROGRESS or REFERENCE
 * @param text the fact, one statement about the owner
 * @param importance how much it matters (NORMAL when the model did not say)
 */
record FactCandidate(String type, String text, Importance importance) {

  static final Set<String> TYPES =
      Set.of("FACT", "DECISION", "PREFERENCE", "TASK_PROGRESS", "REFERENCE");

  FactCandidate {
    Require.nonNull("type text importance", type, text, importance);
    if (!TYPES.contains(type)) {
      throw new IllegalArgumentException("fact type must be one of " + TYPES + ", got " + type);
    }
    if (text.isBlank()) {
      throw new IllegalArgumentException("fact text must not be blank");
    }
  }
}
