package dev.memstack.vector.consolidation;

import dev.memstack.support.JsonAnswers;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The chat model's answer to one consolidation, checked against the memories it was given: {@code
 * {"reason", "merged": [...], "entries": [{"from": [indexes], "text"}]}}. Each entry stands for the
 * given memories its {@code from} names (one index: kept or reworded; several: merged into one);
 * every index at most once, a memory no entry names is dropped. Either a plan, or for an answer
 * that is not such JSON the reason it was refused ({@link #invalid()}). An answer with as many
 * entries as it was given or more is never written, so its entries are counted ({@link
 * #answered()}) and not read further.
 *
 * @param reason what the model said it did, or empty
 * @param merged what it said it merged or dropped, one line each
 * @param answered how many entries the answer holds
 * @param entries the new list; empty when {@code answered} is not below the number given
 * @param invalid why the answer was refused, or {@code null} for a usable plan
 */
record ConsolidationPlan(
    String reason, List<String> merged, int answered, List<Entry> entries, String invalid) {

  /**
   * One entry of the new list.
   *
   * @param from the indexes of the given memories it stands for, at least one
   * @param text its text, stripped
   */
  record Entry(List<Integer> from, String text) {

    Entry {
      from = List.copyOf(from);
    }
  }

  ConsolidationPlan {
    merged = List.copyOf(merged);
    entries = List.copyOf(entries);
  }

  /** Whether the answer was refused. */
  boolean refused() {
    return invalid != null;
  }

  /** The given memories that no entry names: dropped. */
  List<Integer> dropped(int given) {
    BitSet named = new BitSet(given);
    entries.forEach(e -> e.from().forEach(named::set));
    List<Integer> dropped = new ArrayList<>();
    for (int i = named.nextClearBit(0); i < given; i = named.nextClearBit(i + 1)) {
      dropped.add(i);
    }
    return dropped;
  }

  /**
   * Reads the model's answer to {@code given} memories.
   *
   * @param maxChars the longest text an entry may have
   */
  static ConsolidationPlan parse(String answer, int given, int maxChars) {
    ObjectNode node = JsonAnswers.object(answer).orElse(null);
    if (node == null || !node.path("entries").isArray()) {
      return refuse("the model's answer holds no JSON object with an entries list");
    }
    List<String> merged = new ArrayList<>();
    for (JsonNode line : node.path("merged")) {
      if (line.isString() && !line.stringValue().isBlank()) {
        merged.add(line.stringValue().strip());
      }
    }
    String reason = node.path("reason").isString() ? node.path("reason").stringValue().strip() : "";
    int answered = node.get("entries").size();
    if (answered >= given) {
      return new ConsolidationPlan(reason, merged, answered, List.of(), null);
    }
    BitSet seen = new BitSet(given);
    List<Entry> entries = new ArrayList<>();
    for (JsonNode item : node.get("entries")) {
      JsonNode text = item.path("text");
      if (!text.isString() || text.stringValue().isBlank()) {
        return refuse("an entry of the model's answer has no text");
      }
      String stripped = text.stringValue().strip();
      if (stripped.length() > maxChars) {
        return refuse("an entry of the model's answer is longer than " + maxChars + " characters");
      }
      JsonNode from = item.path("from");
      if (!from.isArray() || from.isEmpty()) {
        return refuse("an entry of the model's answer names no memory it stands for (from)");
      }
      List<Integer> indexes = new ArrayList<>();
      for (JsonNode index : from) {
        if (!index.canConvertToInt() || !index.isIntegralNumber()) {
          return refuse("the model's answer names " + index + " in from, which is no index");
        }
        int i = index.intValue();
        if (i < 0 || i >= given) {
          return refuse("the model's answer names index " + i + ", which it was not given");
        }
        if (seen.get(i)) {
          return refuse("the model's answer names index " + i + " twice");
        }
        seen.set(i);
        indexes.add(i);
      }
      entries.add(new Entry(indexes, stripped));
    }
    return new ConsolidationPlan(reason, merged, answered, entries, null);
  }

  private static ConsolidationPlan refuse(String why) {
    return new ConsolidationPlan("", List.of(), 0, List.of(), why + "; nothing changed");
  }
}
