package dev.memstack.builtin.memory;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The injection budget of the structured entries ({@link StructuredEntries}) of {@code PROFILE.md}
 * and {@code MEMORY.md} in one prompt block: at most {@code maxPerType} entries of each file type,
 * then at most {@code maxChars} characters of entries in all, newest first; the rest are left out
 * of the block (the files stay as they are). An entry is as new as the latest {@code YYYY-MM-DD}
 * date it carries; one without a date is as new as the dated entry above it in its file (the oldest
 * possible when there is none), and of two equally new entries the later in its file comes first,
 * so undated files keep their last entries. Headings and other text are never cut here. Stateless.
 */
final class EntryBudget {

  private EntryBudget() {}

  /** One file of the block: its type (file name) and content. */
  record Input(String type, String content) {}

  /**
   * What the budget left.
   *
   * @param contents the contents, in the order of the inputs (unchanged when nothing was cut)
   * @param cut per input, whether entries were left out
   * @param omitted how many entries were left out in all
   * @param total how many entries there were in all
   */
  record Output(List<String> contents, List<Boolean> cut, int omitted, int total) {}

  private record Candidate(int input, int index, LocalDate date, int length) {}

  static Output apply(List<Input> inputs, int maxPerType, int maxChars) {
    List<StructuredEntries.Document> documents = new ArrayList<>();
    Map<String, List<Candidate>> byType = new LinkedHashMap<>();
    int total = 0;
    for (int i = 0; i < inputs.size(); i++) {
      StructuredEntries.Document document = StructuredEntries.parse(inputs.get(i).content());
      documents.add(document);
      LocalDate carried = LocalDate.MIN;
      for (StructuredEntries.Entry entry : document.entries()) {
        LocalDate date = entry.date();
        if (date != null) {
          carried = date;
        }
        byType
            .computeIfAbsent(inputs.get(i).type(), t -> new ArrayList<>())
            .add(new Candidate(i, entry.index(), carried, entry.text().length() + 1));
        total++;
      }
    }
    Comparator<Candidate> newestFirst =
        Comparator.comparing(Candidate::date)
            .thenComparingInt(Candidate::index)
            .thenComparingInt(Candidate::input)
            .reversed();
    List<Candidate> kept = new ArrayList<>();
    for (List<Candidate> candidates : byType.values()) {
      candidates.sort(newestFirst);
      kept.addAll(
          maxPerType > 0 && candidates.size() > maxPerType
              ? candidates.subList(0, maxPerType)
              : candidates);
    }
    if (maxChars > 0) {
      kept.sort(newestFirst);
      int used = 0;
      int fit = 0;
      while (fit < kept.size() && used + kept.get(fit).length() <= maxChars) {
        used += kept.get(fit).length();
        fit++;
      }
      kept = new ArrayList<>(kept.subList(0, fit));
    }
    List<Set<Integer>> keep = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      keep.add(new HashSet<>());
    }
    kept.forEach(c -> keep.get(c.input()).add(c.index()));
    List<String> contents = new ArrayList<>();
    List<Boolean> cut = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      boolean cutHere = keep.get(i).size() < documents.get(i).entries().size();
      cut.add(cutHere);
      contents.add(cutHere ? documents.get(i).keep(keep.get(i)) : inputs.get(i).content());
    }
    return new Output(contents, cut, total - kept.size(), total);
  }

  /** The closing line of a block that left {@code omitted} of {@code total} entries out. */
  static String marker(int omitted, int total, int maxPerType, int maxChars) {
    return "[memory: "
        + omitted
        + " of "
        + total
        + (total == 1 ? " entry" : " entries")
        + " of PROFILE.md and MEMORY.md left out, oldest first, to stay within "
        + (maxPerType > 0 ? maxPerType + " entries per file" : "no entry limit")
        + " and "
        + (maxChars > 0 ? maxChars + " characters" : "no character limit")
        + "; the files keep them]";
  }
}
