package dev.memstack.builtin.extraction;

import dev.memstack.builtin.memory.MemoryFiles;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The structured reports of dreaming runs, one file a month in the bucket they dreamed: {@code
 * dreams/YYYY-MM.md} (a line per report for people, then the reports as JSON). Reports older than
 * {@code archive-keep-days} roll into the same file's archive block, gzip-compressed and base64
 * encoded, and stay readable here. The {@code dreams/} folder is kept out of keyword search and out
 * of the prompt (new files are disabled), and goes with its bucket (an owner's erasure).
 *
 * <p>Each report lists what the run read, the patterns the model named, what changed in which file
 * with the earlier text, and the items of the change: each line the run added to or removed from
 * {@code MEMORY.md}, which the owner confirms, edits or forgets from the morning card ({@link
 * #resolve}). A forget removes the item's text from every report and archive of the bucket, from
 * {@code MEMORY.md}, from {@code DREAMS.md} and from the history of the bucket's entries ({@link
 * MemoryFiles#forgetInHistory}); {@link #scrub} does the reports and the journal for a memory
 * forgotten elsewhere. Stateless beyond the files; changes of one bucket run under its lock ({@link
 * MemoryFiles#rewrite}).
 */
public final class DreamReports {

  /** The folder of the report files, in each dreamed bucket. */
  public static final String FOLDER = "dreams/";

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<List<Report>> REPORTS = new TypeReference<>() {};
  private static final String ARCHIVED = "## Archived (gzip, base64)";
  private static final String LIVE = "## Reports";
  private static final WorkspacePath MEMORY = WorkspacePath.of("MEMORY.md");

  /** What a forgotten item's text becomes wherever it was written. */
  public static final String FORGOTTEN = "[forgotten]";

  /** One line a run added to or removed from a file, as the owner sees it on the card. */
  public record Item(int index, String text, String kind, String status) {

    Item with(String newText, String newStatus) {
      return new Item(index, newText, kind, newStatus);
    }
  }

  /** One file a run changed, with the text before and after. */
  public record FileChange(String file, String before, String after) {}

  /** One run's report of one bucket. */
  public record Report(
      String id,
      String time,
      String trigger,
      String scope,
      String owner,
      String topic,
      String read,
      String patterns,
      List<FileChange> changes,
      List<Item> items) {

    public Report {
      changes = changes == null ? List.of() : List.copyOf(changes);
      items = items == null ? List.of() : List.copyOf(items);
    }

    /** When the run ended. */
    public Instant instant() {
      return Instant.parse(time);
    }

    /** The day of the run in {@code zone}. */
    public LocalDate day(ZoneId zone) {
      return instant().atZone(zone).toLocalDate();
    }
  }

  private final MemoryFiles files;
  private final int keepDays;

  public DreamReports(MemoryFiles files, int keepDays) {
    this.files = Objects.requireNonNull(files, "files");
    this.keepDays = keepDays;
  }

  /**
   * The items of a change of {@code MEMORY.md}: each non-empty line, not a heading, that {@code
   * after} has and {@code before} had not (added), then each that {@code before} had and {@code
   * after} has not (removed).
   */
  public static List<Item> items(String before, String after) {
    Set<String> old = lines(before);
    Set<String> now = lines(after);
    List<Item> items = new ArrayList<>();
    for (String line : now) {
      if (!old.contains(line)) {
        items.add(new Item(items.size(), line, "added", "pending"));
      }
    }
    for (String line : old) {
      if (!now.contains(line)) {
        items.add(new Item(items.size(), line, "removed", "pending"));
      }
    }
    return items;
  }

  private static Set<String> lines(String text) {
    Set<String> lines = new LinkedHashSet<>();
    for (String line : (text == null ? "" : text).split("\n")) {
      String item = itemText(line);
      if (!item.isEmpty() && !line.strip().startsWith("#")) {
        lines.add(item);
      }
    }
    return lines;
  }

  /** A line as an item: without its bullet and surrounding space. */
  static String itemText(String line) {
    return line.strip().replaceFirst("^([-*+]|\\d+[.)])\\s+", "").strip();
  }

  /** Adds {@code report} to its month's file in {@code bucket}, rolling old reports first. */
  public void append(Bucket bucket, Report report, Instant now) {
    WorkspacePath month = monthFile(report.instant());
    files.rewrite(
        bucket,
        month,
        current -> {
          MonthFile file = MonthFile.parse(current);
          file.live.add(report);
          return file.rolled(now, keepDays)
              .render(YearMonth.from(report.instant().atZone(ZoneOffset.UTC)));
        });
    // earlier months' files roll too, so that no report stays uncompressed past its keep days
    // (read first: a month with nothing left to roll, the usual case, is not written again)
    for (WorkspacePath other : monthFiles(bucket)) {
      if (!other.equals(month)
          && files.read(bucket, other).filter(c -> !roll(c, other, now).equals(c)).isPresent()) {
        files.rewrite(bucket, other, current -> roll(current, other, now));
      }
    }
  }

  private String roll(String current, WorkspacePath path, Instant now) {
    MonthFile file = MonthFile.parse(current);
    MonthFile rolled = file.rolled(now, keepDays);
    return rolled == file ? current : rolled.render(month(path));
  }

  /** Every report of the bucket, archived ones included, newest first. */
  public List<Report> all(Bucket bucket) {
    List<Report> reports = new ArrayList<>();
    for (WorkspacePath path : monthFiles(bucket)) {
      files
          .read(bucket, path)
          .map(MonthFile::parse)
          .ifPresent(
              f -> {
                List<Report> month = f.all();
                month.sort(Comparator.comparing(Report::instant));
                reports.addAll(month);
              });
    }
    java.util.Collections.reverse(reports); // of one time, the later written first
    reports.sort(Comparator.comparing(Report::instant).reversed());
    return reports;
  }

  /** The reports of the bucket whose day in {@code zone} is within {@code from}..{@code to}. */
  public List<Report> between(Bucket bucket, LocalDate from, LocalDate to, ZoneId zone) {
    return all(bucket).stream()
        .filter(r -> !r.day(zone).isBefore(from) && !r.day(zone).isAfter(to))
        .toList();
  }

  /** What an owner's answer to one item did. */
  public record Resolved(Report report, Item item) {}

  /**
   * Confirms, edits or forgets item {@code index} of report {@code reportId}.
   *
   * @param action {@code confirm}, {@code edit} (with {@code text}) or {@code forget}
   * @return the report and item after the change, or empty when the bucket has no such item
   * @throws IllegalStateException for an item already forgotten
   */
  public Optional<Resolved> resolve(
      Bucket bucket, String reportId, int index, String action, String text) {
    Optional<Report> found = all(bucket).stream().filter(r -> r.id().equals(reportId)).findFirst();
    if (found.isEmpty() || index < 0 || index >= found.get().items().size()) {
      return Optional.empty();
    }
    Item item = found.get().items().get(index);
    if (item.status().equals("forgotten")) {
      throw new IllegalStateException(
          "item " + index + " of report " + reportId + " was forgotten; nothing is left of it");
    }
    Item after;
    switch (action) {
      case "confirm" -> after = item.with(item.text(), "confirmed");
      case "edit" -> {
        String edited = Objects.requireNonNull(text, "text").strip();
        editMemory(bucket, item, edited);
        after = item.with(edited, "edited");
      }
      case "forget" -> {
        forgetEverywhere(bucket, item);
        after = item.with("", "forgotten");
      }
      default -> throw new IllegalArgumentException("action must be confirm, edit or forget");
    }
    Report changed = replaceItem(bucket, found.get(), after);
    return Optional.of(new Resolved(changed, after));
  }

  /**
   * An edited item: its line in MEMORY.md replaced (an added one) or written back (a removed one).
   */
  private void editMemory(Bucket bucket, Item item, String edited) {
    files.rewrite(
        bucket,
        MEMORY,
        memory -> {
          List<String> out = new ArrayList<>();
          boolean replaced = false;
          for (String line : memory.split("\n", -1)) {
            if (!replaced && itemText(line).equals(item.text()) && !line.strip().startsWith("#")) {
              out.add(line.replace(item.text(), edited));
              replaced = true;
            } else {
              out.add(line);
            }
          }
          String next = String.join("\n", out);
          if (!replaced) {
            next =
                (next.endsWith("\n") || next.isEmpty() ? next : next + "\n") + "- " + edited + "\n";
          }
          return next;
        });
  }

  /**
   * A forgotten item: its line leaves MEMORY.md, and its text becomes {@value #FORGOTTEN} in every
   * report, archive and the DREAMS.md journal of the bucket.
   */
  private void forgetEverywhere(Bucket bucket, Item item) {
    String text = item.text();
    files.rewrite(
        bucket,
        MEMORY,
        memory -> {
          List<String> out = new ArrayList<>();
          for (String line : memory.split("\n", -1)) {
            if (!(itemText(line).equals(text) && !line.strip().startsWith("#"))) {
              out.add(line.contains(text) ? line.replace(text, FORGOTTEN) : line);
            }
          }
          return String.join("\n", out);
        });
    files.forgetInHistory(bucket, text);
    scrub(bucket, text);
  }

  /**
   * Replaces {@code text} by {@value #FORGOTTEN} in the {@code DREAMS.md} journal and in every
   * report and archive of the bucket (a forgotten memory's text; the memory itself is the caller's
   * to remove). A journal or month file without it is not written.
   */
  public void scrub(Bucket bucket, String text) {
    if (text == null || text.isBlank()) {
      return;
    }
    if (files.read(bucket, Dreaming.DREAMS).filter(j -> j.contains(text)).isPresent()) {
      files.rewrite(bucket, Dreaming.DREAMS, journal -> journal.replace(text, FORGOTTEN));
    }
    UnaryOperator<String> scrub = s -> s == null ? null : s.replace(text, FORGOTTEN);
    for (WorkspacePath path : monthFiles(bucket)) {
      UnaryOperator<String> change =
          current -> MonthFile.parse(current).map(r -> scrubbed(r, scrub)).render(month(path));
      if (files.read(bucket, path).filter(c -> !change.apply(c).equals(c)).isPresent()) {
        files.rewrite(bucket, path, change);
      }
    }
  }

  private static Report scrubbed(Report r, UnaryOperator<String> scrub) {
    List<FileChange> changes =
        r.changes().stream()
            .map(c -> new FileChange(c.file(), scrub.apply(c.before()), scrub.apply(c.after())))
            .toList();
    List<Item> items =
        r.items().stream()
            .map(
                i ->
                    i.status().equals("forgotten") || !i.text().equals(scrub.apply(i.text()))
                        ? i.with(
                            i.text().equals(scrub.apply(i.text())) ? i.text() : "", "forgotten")
                        : i)
            .toList();
    return new Report(
        r.id(),
        r.time(),
        r.trigger(),
        r.scope(),
        r.owner(),
        scrub.apply(r.topic()),
        scrub.apply(r.read()),
        scrub.apply(r.patterns()),
        changes,
        items);
  }

  private Report replaceItem(Bucket bucket, Report report, Item item) {
    WorkspacePath path = monthFile(report.instant());
    Report[] changed = new Report[1];
    files.rewrite(
        bucket,
        path,
        current ->
            MonthFile.parse(current)
                .map(
                    r -> {
                      if (!r.id().equals(report.id())) {
                        return r;
                      }
                      List<Item> items = new ArrayList<>(r.items());
                      items.set(item.index(), item);
                      changed[0] =
                          new Report(
                              r.id(),
                              r.time(),
                              r.trigger(),
                              r.scope(),
                              r.owner(),
                              r.topic(),
                              r.read(),
                              r.patterns(),
                              r.changes(),
                              items);
                      return changed[0];
                    })
                .render(month(path)));
    return changed[0] == null ? report : changed[0];
  }

  private List<WorkspacePath> monthFiles(Bucket bucket) {
    return files.list(bucket, FOLDER).stream()
        .filter(p -> p.value().matches("dreams/\\d{4}-\\d{2}\\.md"))
        .toList();
  }

  static WorkspacePath monthFile(Instant time) {
    return WorkspacePath.of(FOLDER + YearMonth.from(time.atZone(ZoneOffset.UTC)) + ".md");
  }

  private static YearMonth month(WorkspacePath path) {
    String name = path.fileName();
    return YearMonth.parse(name.substring(0, name.length() - 3));
  }

  /** One month file: its archived reports (compressed on disk) and its live ones. */
  private static final class MonthFile {
    final List<Report> archived;
    final List<Report> live;

    MonthFile(List<Report> archived, List<Report> live) {
      this.archived = new ArrayList<>(archived);
      this.live = new ArrayList<>(live);
    }

    static MonthFile parse(String content) {
      if (content == null || content.isBlank()) {
        return new MonthFile(List.of(), List.of());
      }
      List<Report> archived = List.of();
      String archive = block(content, ARCHIVED, "```text");
      if (archive != null && !archive.isBlank()) {
        archived = JSON.readValue(gunzip(archive.strip()), REPORTS);
      }
      String live = block(content, LIVE, "```json");
      return new MonthFile(
          archived, live == null || live.isBlank() ? List.of() : JSON.readValue(live, REPORTS));
    }

    private static String block(String content, String heading, String fence) {
      int at = content.indexOf(heading);
      if (at < 0) {
        return null;
      }
      int start = content.indexOf(fence, at);
      if (start < 0) {
        return null;
      }
      start += fence.length();
      int end = content.indexOf("\n```", start);
      return end < 0 ? null : content.substring(start, end);
    }

    List<Report> all() {
      List<Report> all = new ArrayList<>(archived);
      all.addAll(live);
      return all;
    }

    MonthFile map(UnaryOperator<Report> change) {
      return new MonthFile(
          archived.stream().map(change).toList(), live.stream().map(change).toList());
    }

    /** This file with the live reports older than {@code keepDays} archived; itself if none. */
    MonthFile rolled(Instant now, int keepDays) {
      Instant cut = now.minus(java.time.Duration.ofDays(keepDays));
      List<Report> old = live.stream().filter(r -> r.instant().isBefore(cut)).toList();
      if (old.isEmpty()) {
        return this;
      }
      List<Report> archive = new ArrayList<>(archived);
      archive.addAll(old);
      List<Report> stay = live.stream().filter(r -> !r.instant().isBefore(cut)).toList();
      return new MonthFile(archive, stay);
    }

    String render(YearMonth month) {
      StringBuilder out = new StringBuilder("# Dreaming reports, ").append(month).append("\n\n");
      List<Report> all = all();
      all.sort(Comparator.comparing(Report::time));
      for (Report r : all) {
        long open = r.items().stream().filter(i -> !i.status().equals("forgotten")).count();
        out.append("- ")
            .append(r.time(), 0, Math.min(16, r.time().length()))
            .append(" · ")
            .append(r.scope())
            .append(" · ")
            .append(r.trigger())
            .append(r.topic() == null ? "" : " · topic: " + r.topic())
            .append(" · ")
            .append(open)
            .append(" item(s)\n");
      }
      if (!archived.isEmpty()) {
        out.append('\n').append(ARCHIVED).append("\n```text\n");
        out.append(gzip(JSON.writeValueAsString(archived))).append("\n```\n");
      }
      out.append('\n').append(LIVE).append("\n```json\n");
      out.append(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(live)).append("\n```\n");
      return out.toString();
    }
  }

  private static String gzip(String text) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String encoded = Base64.getEncoder().encodeToString(bytes.toByteArray());
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < encoded.length(); i += 76) {
      lines.append(encoded, i, Math.min(encoded.length(), i + 76));
      if (i + 76 < encoded.length()) {
        lines.append('\n');
      }
    }
    return lines.toString();
  }

  private static String gunzip(String base64) {
    byte[] bytes = Base64.getMimeDecoder().decode(base64);
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
