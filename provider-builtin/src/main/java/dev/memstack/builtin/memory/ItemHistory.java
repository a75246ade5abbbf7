package dev.memstack.builtin.memory;

import dev.memstack.builtin.memory.MemoryItems.HistoryEvent;
import dev.memstack.builtin.store.BucketTransaction;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The two files the memory-admin tools keep in a bucket beside its entries, both ordinary workspace
 * files (so both stores keep them, and an owner's erasure removes them with the bucket) that the
 * file tools hide and keyword search and the prompt leave out ({@link
 * WorkspacePath#isEntryHistory()}):
 *
 * <ul>
 *   <li>the history log, {@code history/YYYY-MM.md} per month (UTC) of its events: a title, then
 *       one JSON object a line ({@code id}, {@code at}, {@code event}, {@code actor} and the
 *       details);
 *   <li>the archive, {@code history/archive.md}: the entries taken out of their files (archived or
 *       suppressed), listed for people under a heading that names each one's file and section, then
 *       as a JSON array that is what the tools read.
 * </ul>
 *
 * A line or a block that cannot be read is skipped, never fatal. Stateless.
 */
final class ItemHistory {

  static final String FOLDER = "history/";
  static final WorkspacePath ARCHIVE = WorkspacePath.of(FOLDER + "archive.md");

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final String RECORDS = "\n```json\n";
  private static final TypeReference<List<Archived>> LIST = new TypeReference<>() {};

  private ItemHistory() {}

  /**
   * One entry in the archive.
   *
   * @param id the entry's id (as it had in its file)
   * @param file the file it came from
   * @param section its section there (a daily entry: its heading line)
   * @param text its lines (a structured entry: with the bullet marker; a daily entry: its body)
   * @param status {@code archived} or {@code suppressed}
   * @param at when it was moved here (an ISO instant)
   */
  record Archived(String id, String file, String section, String text, String status, String at) {

    Archived withText(String newId, String newText) {
      return new Archived(newId, file, section, newText, status, at);
    }
  }

  // ---------------------------------------------------------------- the log

  /** Every event of the bucket the files of {@code read} hold, month by month, in file order. */
  static List<HistoryEvent> events(
      List<FileEntry> files, Function<WorkspacePath, Optional<String>> read) {
    List<HistoryEvent> events = new ArrayList<>();
    for (WorkspacePath path : months(files)) {
      read.apply(path).ifPresent(content -> events.addAll(parse(content)));
    }
    return events;
  }

  /** Appends {@code events} to their months' logs in the transaction's bucket. */
  static void append(BucketTransaction tx, List<HistoryEvent> events) {
    Map<YearMonth, List<HistoryEvent>> byMonth = new TreeMap<>();
    for (HistoryEvent event : events) {
      byMonth.computeIfAbsent(month(event.at()), m -> new ArrayList<>()).add(event);
    }
    byMonth.forEach(
        (month, added) -> {
          WorkspacePath path = monthFile(month);
          List<HistoryEvent> all =
              new ArrayList<>(tx.read(path).map(ItemHistory::parse).orElse(List.of()));
          all.addAll(added);
          tx.write(path, render(month, all), WorkspaceRules.metaForNewFile(path));
        });
  }

  /**
   * Rewrites every month's log of the transaction's bucket through {@code change} (which may drop
   * and change events); a month it leaves as it was is not written.
   */
  static void rewrite(BucketTransaction tx, UnaryOperator<List<HistoryEvent>> change) {
    for (WorkspacePath path : months(tx.list())) {
      List<HistoryEvent> before = tx.read(path).map(ItemHistory::parse).orElse(List.of());
      List<HistoryEvent> after = change.apply(before);
      if (!after.equals(before)) {
        tx.write(path, render(month(path), after), WorkspaceRules.metaForNewFile(path));
      }
    }
  }

  private static List<WorkspacePath> months(List<FileEntry> files) {
    return files.stream()
        .map(FileEntry::path)
        .filter(p -> p.isEntryHistory() && !p.equals(ARCHIVE))
        .sorted()
        .toList();
  }

  private static YearMonth month(Instant at) {
    return YearMonth.from(at.atZone(ZoneOffset.UTC));
  }

  private static YearMonth month(WorkspacePath path) {
    String name = path.fileName();
    return YearMonth.parse(name.substring(0, name.length() - 3));
  }

  private static WorkspacePath monthFile(YearMonth month) {
    return WorkspacePath.of(FOLDER + month + ".md");
  }

  private static List<HistoryEvent> parse(String content) {
    List<HistoryEvent> events = new ArrayList<>();
    for (String line : content.split("\n")) {
      if (line.startsWith("{")) {
        event(line).ifPresent(events::add);
      }
    }
    return events;
  }

  private static Optional<HistoryEvent> event(String line) {
    try {
      JsonNode node = JSON.readTree(line);
      Map<String, String> details = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> field : node.properties()) {
        if (!List.of("id", "at", "event", "actor").contains(field.getKey())
            && field.getValue().isString()) {
          details.put(field.getKey(), field.getValue().stringValue());
        }
      }
      return Optional.of(
          new HistoryEvent(
              node.path("id").stringValue(),
              Instant.parse(node.path("at").stringValue()),
              node.path("event").stringValue(),
              node.path("actor").isString() ? node.path("actor").stringValue() : null,
              details));
    } catch (JacksonException | DateTimeParseException | NullPointerException e) {
      return Optional.empty(); // a line edited by hand beyond reading: skipped
    }
  }

  private static String render(YearMonth month, List<HistoryEvent> events) {
    StringBuilder out =
        new StringBuilder("# Memory history, ")
            .append(month)
            .append(
                "\n\nThe events of this bucket's memory entries, one JSON object a line; read"
                    + " them with memory_history.\n\n```jsonl\n");
    for (HistoryEvent event : events) {
      ObjectNode node = JSON.createObjectNode();
      node.put("id", event.id());
      node.put("at", event.at().toString());
      node.put("event", event.event());
      if (event.actor() != null) {
        node.put("actor", event.actor());
      }
      event.details().forEach(node::put);
      out.append(JSON.writeValueAsString(node)).append('\n');
    }
    return out.append("```\n").toString();
  }

  // ---------------------------------------------------------------- the archive

  /** The entries of an archive file's content; none for {@code null}. */
  static List<Archived> archived(String content) {
    if (content == null) {
      return List.of();
    }
    int start = content.lastIndexOf(RECORDS);
    int end = start < 0 ? -1 : content.indexOf("\n```", start + RECORDS.length());
    if (end < 0) {
      return List.of();
    }
    List<Archived> entries;
    try {
      entries =
          new ArrayList<>(JSON.readValue(content.substring(start + RECORDS.length(), end), LIST));
    } catch (JacksonException e) {
      return List.of(); // edited by hand beyond reading: nothing to show
    }
    entries.removeIf(a -> a.id() == null || a.file() == null || a.text() == null || a.at() == null);
    return entries;
  }

  /** The archive file for {@code entries}. */
  static String renderArchive(List<Archived> entries) {
    StringBuilder out =
        new StringBuilder(
            "# Archived memory entries\n\nEntries taken out of their files (archived, or"
                + " suppressed as wrong); they are in no prompt and no search. Activate one to put"
                + " it back.\n");
    Map<String, List<Archived>> byPlace = new LinkedHashMap<>();
    for (Archived entry : entries) {
      String section = DailyEntries.title(entry.section());
      String place = entry.file() + (section.isEmpty() ? "" : " · " + section);
      byPlace.computeIfAbsent(place, p -> new ArrayList<>()).add(entry);
    }
    byPlace.forEach(
        (place, ofPlace) -> {
          out.append("\n## ").append(place).append('\n');
          for (Archived entry : ofPlace) {
            String gist = entry.text().strip().replaceFirst("^[-*] ", "").replaceAll("\\s+", " ");
            out.append("- [").append(entry.status()).append("] ").append(gist).append('\n');
          }
        });
    out.append("\n## Records\n```json\n")
        .append(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(entries))
        .append("\n```\n");
    return out.toString();
  }
}
