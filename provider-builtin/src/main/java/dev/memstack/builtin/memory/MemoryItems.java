package dev.memstack.builtin.memory;

import dev.memstack.builtin.memory.ItemHistory.Archived;
import dev.memstack.builtin.store.BucketTransaction;
import dev.memstack.builtin.store.FileEntry;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.InvalidWorkspacePathException;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.Scope;
import dev.memstack.spi.ToolException;
import dev.memstack.support.Digests;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The builtin provider's memories one by one, for the memory-admin tools: each top-level bullet of
 * {@code PROFILE.md} and {@code MEMORY.md} ({@link StructuredEntries}, the template's placeholder
 * bullets left out) and each entry of a daily note ({@link DailyEntries}: a turn, or what
 * extraction wrote) is an item, in an owner's PERSONAL bucket or an agent's TEAM bucket.
 *
 * <p><b>Ids.</b> An item's id is {@code b-} and 24 hex digits of the SHA-256 of its bucket, file,
 * section (a daily entry: its heading line) and text with runs of white space as one space: the
 * same entry has the same id on every host and after every restart, and nothing is stored to keep
 * it. Changing the text makes a new id: an edit answers it, and the history links the two ({@code
 * updated} with {@code other}), so an id an edit replaced still leads to the edited entry. Two
 * entries with the same text in one section are one item (the first).
 *
 * <p><b>Status.</b> An item in its file is {@code active}. Archiving ({@code archived}) or
 * suppressing ({@code suppressed}: kept, but marked as wrong) moves it out of its file into the
 * bucket's archive, {@code history/archive.md}, under a heading that names its file and section;
 * from there it reaches no prompt and no search. Activating moves it back: a structured entry to
 * the end of its section (the section is added at the end of the file when it has gone), a daily
 * entry to the end of its note.
 *
 * <p><b>Optimistic locking.</b> {@code updatedAt} is the last change of the file that holds the
 * item (its file, or the archive): an edit, status change or delete is checked against it under the
 * bucket's lock, so any change of that file after the read (another item's too) makes a stale
 * {@code updatedAt} a {@code CONFLICT}. The stores move a file's update time forward by at least a
 * millisecond on every write.
 *
 * <p><b>History.</b> Each bucket keeps its items' history in {@code history/YYYY-MM.md} ({@link
 * ItemHistory}), written in the same transaction as the change it records: {@code added} and {@code
 * removed} for every entry a write of {@code PROFILE.md} or {@code MEMORY.md} adds or drops (the
 * tools' file writes and edits, extraction, dreaming, consolidation, a card's answer, a snapshot
 * import; {@link #recorded}), and {@code updated}, {@code status} and {@code forgotten} for the
 * changes made here; each with the actor the call named ({@link #actingAs}). A daily entry is
 * written by every turn: its {@code added} is read from the entry itself, not logged. A forget
 * drops the events of the item and of the items its edits linked, writes one {@code forgotten}
 * event (no text) for each, and replaces its text by {@value #FORGOTTEN} in every other event of
 * the bucket. Erasing an owner deletes their bucket, and so their history and archive.
 *
 * <p>Thread-safe: every change is one transaction of the item's bucket.
 */
public final class MemoryItems {

  /** The status of an item in its file. */
  public static final String ACTIVE = "active";

  /** The status of an item moved to the archive. */
  public static final String ARCHIVED = "archived";

  /** The status of an item moved to the archive as wrong. */
  public static final String SUPPRESSED = "suppressed";

  /** What a forgotten item's text becomes in the events of other items. */
  public static final String FORGOTTEN = "[forgotten]";

  private static final ThreadLocal<String> ACTOR = new ThreadLocal<>();

  /**
   * One item.
   *
   * @param id its id (see the class comment)
   * @param bucket the bucket it is in
   * @param file the file it belongs to ({@code PROFILE.md}, {@code MEMORY.md} or a daily note),
   *     also while it is archived
   * @param type {@code profile}, {@code memory} or {@code daily}
   * @param section its {@code ##} section, or a daily entry's heading without its turn marker
   * @param text its text (a structured entry without its bullet marker)
   * @param status {@link #ACTIVE}, {@link #ARCHIVED} or {@link #SUPPRESSED}
   * @param createdAt when its history saw it added (through an edit: the first text's), else a
   *     daily entry's heading time, else the last change of its file
   * @param updatedAt the last change of the file that holds it
   * @param turn the turn a daily entry was written for, or {@code null}
   */
  public record Item(
      String id,
      Bucket bucket,
      WorkspacePath file,
      String type,
      String section,
      String text,
      String status,
      Instant createdAt,
      Instant updatedAt,
      String turn) {}

  /**
   * One event of an item's history.
   *
   * @param id the item it is about
   * @param at when it happened
   * @param event {@code added}, {@code removed}, {@code updated}, {@code status} or {@code
   *     forgotten}
   * @param actor who made the change, or {@code null} when unknown
   * @param details {@code file}, {@code section}, {@code text}, {@code previous}, {@code status},
   *     {@code previousStatus}, {@code other}, where they apply
   */
  public record HistoryEvent(
      String id, Instant at, String event, String actor, Map<String, String> details) {

    public HistoryEvent {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(at, "at");
      Objects.requireNonNull(event, "event");
      details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    String detail(String key) {
      return details.get(key);
    }
  }

  /** An item's history, oldest first; a forgotten item's is its one {@code forgotten} event. */
  public record History(String id, boolean forgotten, List<HistoryEvent> events) {}

  /** What an edit did: the item after it, whether it changed, and the id it had before. */
  public record Edited(Item item, boolean changed, String previousId) {}

  /** What a status change did: the item after it and the status before. */
  public record StatusChange(Item item, String previous) {}

  private final WorkspaceStore store;
  private final Clock clock;
  private final SizeCaps caps;
  private final Map<WorkspacePath, Set<String>> placeholders;
  private final WorkspaceMemory.MemoryWrites written;

  /**
   * @param store the store, written directly (not through {@link #recorded}: the changes made here
   *     record their own events)
   * @param written told after every change made here
   */
  MemoryItems(
      WorkspaceStore store,
      Clock clock,
      SizeCaps caps,
      Templates templates,
      WorkspaceMemory.MemoryWrites written) {
    this.placeholders = placeholders(templates);
    this.store = store;
    this.clock = clock;
    this.caps = caps;
    this.written = written;
  }

  /** The bullets of the templates of {@code PROFILE.md} and {@code MEMORY.md}: no memories. */
  private static Map<WorkspacePath, Set<String>> placeholders(Templates templates) {
    Map<WorkspacePath, Set<String>> placeholders = new HashMap<>();
    for (WorkspacePath path : StructuredEntries.FILES) {
      Set<String> bullets = new HashSet<>();
      StructuredEntries.parse(templates.get(path.value()))
          .entries()
          .forEach(e -> bullets.add(e.text()));
      placeholders.put(path, bullets);
    }
    return placeholders;
  }

  /**
   * Runs {@code work} with {@code actor} as the actor of the history events it causes on this
   * thread (a tool call's {@link dev.memstack.spi.ToolCall#actor()}).
   */
  public static <T> T actingAs(String actor, Supplier<T> work) {
    String before = ACTOR.get();
    ACTOR.set(actor);
    T result;
    try {
      result = work.get();
    } finally {
      ACTOR.set(before);
    }
    return result;
  }

  /** The actor {@link #actingAs} set on this thread, or {@code null}. */
  static String actor() {
    return ACTOR.get();
  }

  // ---------------------------------------------------------------- reads

  /** Every item of the buckets, active and archived, in bucket and file order. */
  public List<Item> list(List<Bucket> buckets) {
    List<Item> items = new ArrayList<>();
    for (Bucket bucket : buckets) {
      view(bucket).located.values().forEach(l -> items.add(l.item()));
    }
    return items;
  }

  /** The item {@code id} in one of the buckets; an id an edit replaced leads to the edited item. */
  public Optional<Item> find(List<Bucket> buckets, String id) {
    for (Bucket bucket : buckets) {
      Located located = view(bucket).resolve(id);
      if (located != null) {
        return Optional.of(located.item());
      }
    }
    return Optional.empty();
  }

  /**
   * The history of {@code id} in the bucket of {@code buckets} that knows it, with the events of
   * the items its edits linked; empty when none does.
   */
  public Optional<History> history(List<Bucket> buckets, String id) {
    for (Bucket bucket : buckets) {
      View view = view(bucket);
      if (view.knows(id)) {
        return Optional.of(view.history(id));
      }
    }
    return Optional.empty();
  }

  // ---------------------------------------------------------------- changes

  /**
   * Replaces the text of {@code item} when the file that holds it was last changed at {@code
   * expected}.
   *
   * @throws ToolException CONFLICT for a stale {@code expected}, NOT_FOUND when the item went,
   *     INVALID_ARGUMENT naming {@code text} when the file would grow past its cap
   */
  public Edited edit(Item item, String text, Instant expected, String actor) {
    String[] after = new String[1];
    boolean changed =
        change(
            item,
            (tx, view) -> {
              Located at = view.require(item.id());
              checkFresh(tx, at, expected);
              Located edited = at.withText(text, this);
              if (edited.item().id().equals(at.item().id())) {
                after[0] = at.item().id();
                return false;
              }
              if (at.archived() != null) {
                List<Archived> archive = archive(tx);
                archive.replaceAll(
                    a ->
                        a.id().equals(at.item().id())
                            ? a.withText(edited.item().id(), edited.raw())
                            : a);
                tx.write(ItemHistory.ARCHIVE, ItemHistory.renderArchive(archive), meta());
              } else {
                write(tx, at.item().file(), replaced(tx, at, edited.raw()), "text");
              }
              Map<String, String> details = place(at.item());
              details.put("text", edited.item().text());
              details.put("previous", at.item().text());
              details.put("other", edited.item().id());
              ItemHistory.append(
                  tx, List.of(new HistoryEvent(at.item().id(), now(), "updated", actor, details)));
              after[0] = edited.item().id();
              return true;
            });
    Item now = find(List.of(item.bucket()), after[0]).orElseThrow(() -> notFound(item.id()));
    return new Edited(now, changed, item.id());
  }

  /**
   * Archives, suppresses or activates {@code item}: an active one can be archived or suppressed, an
   * archived or suppressed one activated.
   *
   * @throws ToolException CONFLICT for another change, or when its file has no room to take it
   *     back; NOT_FOUND when it went
   */
  public StatusChange setStatus(Item item, String status, String actor) {
    String previous =
        change(
            item,
            (tx, view) -> {
              Located at = view.require(item.id());
              String current = at.item().status();
              boolean allowed =
                  status.equals(ACTIVE) ? !current.equals(ACTIVE) : current.equals(ACTIVE);
              if (!allowed) {
                throw new ToolException(
                    ToolException.Kind.CONFLICT,
                    "memory "
                        + item.id()
                        + " is "
                        + current
                        + "; only active memories can be archived or suppressed, and only archived"
                        + " or suppressed ones activated");
              }
              List<Archived> archive = archive(tx);
              if (status.equals(ACTIVE)) {
                archive.removeIf(a -> a.id().equals(at.item().id()));
                write(tx, at.item().file(), restored(tx, at), null);
              } else {
                write(tx, at.item().file(), replaced(tx, at, null), null);
                archive.add(
                    new Archived(
                        at.item().id(),
                        at.item().file().value(),
                        at.sectionKey(),
                        at.raw(),
                        status,
                        now().toString()));
              }
              tx.write(ItemHistory.ARCHIVE, ItemHistory.renderArchive(archive), meta());
              Map<String, String> details = place(at.item());
              details.put("status", status);
              details.put("previousStatus", current);
              ItemHistory.append(
                  tx, List.of(new HistoryEvent(at.item().id(), now(), "status", actor, details)));
              return current;
            });
    Item now = find(List.of(item.bucket()), item.id()).orElseThrow(() -> notFound(item.id()));
    return new StatusChange(now, previous);
  }

  /**
   * Forgets {@code item}: it leaves its file (or the archive), its history and the history of the
   * items its edits linked keep one {@code forgotten} event each, and its texts leave every other
   * event of the bucket.
   *
   * @return the texts it had (its current one first), to be scrubbed elsewhere too
   * @throws ToolException NOT_FOUND when it went
   */
  public List<String> forget(Item item, String actor) {
    return change(
        item,
        (tx, view) -> {
          Located at = view.require(item.id());
          if (at.archived() == null) {
            write(tx, at.item().file(), replaced(tx, at, null), null);
          }
          List<Archived> archive = archive(tx);
          if (archive.removeIf(a -> a.id().equals(at.item().id()))) {
            tx.write(ItemHistory.ARCHIVE, ItemHistory.renderArchive(archive), meta());
          }
          Set<String> ids = new TreeSet<>(view.chain(at.item().id()));
          ids.addAll(view.chain(item.id()));
          return forgetIn(tx, view, ids, List.of(at.item().text()), actor);
        });
  }

  /**
   * Forgets, in {@code bucket}'s history and archive, every item whose history or archived text is
   * {@code text} (a morning card's forgotten line): as {@link #forget} does, but the files
   * themselves are the caller's to change.
   */
  public void forgetText(Bucket bucket, String text, String actor) {
    String norm = normalized(text);
    if (norm.isEmpty() || bucket.scope() == Scope.GLOBAL) {
      return;
    }
    store.update(
        bucket,
        tx -> {
          View view = new View(bucket, files(tx));
          Set<String> ids = new TreeSet<>();
          for (HistoryEvent event : view.events) {
            if (norm.equals(normalized(event.detail("text")))
                || norm.equals(normalized(event.detail("previous")))) {
              ids.addAll(view.chain(event.id()));
            }
          }
          List<Archived> archive = archive(tx);
          boolean archived = archive.removeIf(a -> norm.equals(normalized(view.bodyOf(a))));
          if (archived) {
            tx.write(ItemHistory.ARCHIVE, ItemHistory.renderArchive(archive), meta());
          }
          if (!ids.isEmpty()) {
            forgetIn(tx, view, ids, List.of(text), actor);
          }
          return null;
        });
  }

  private List<String> forgetIn(
      BucketTransaction tx, View view, Set<String> ids, List<String> current, String actor) {
    Set<String> texts = new LinkedHashSet<>(current);
    for (HistoryEvent event : view.events) {
      if (ids.contains(event.id())) {
        addText(texts, event.detail("text"));
        addText(texts, event.detail("previous"));
      }
    }
    ItemHistory.rewrite(
        tx,
        events -> {
          List<HistoryEvent> kept = new ArrayList<>();
          for (HistoryEvent event : events) {
            if (!ids.contains(event.id())) {
              kept.add(scrubbed(event, texts));
            }
          }
          return kept;
        });
    Instant now = now();
    List<HistoryEvent> forgotten = new ArrayList<>();
    for (String id : ids) {
      forgotten.add(new HistoryEvent(id, now, "forgotten", actor, Map.of()));
    }
    ItemHistory.append(tx, forgotten);
    return List.copyOf(texts);
  }

  private static void addText(Set<String> texts, String text) {
    if (text != null && !text.isBlank() && !text.equals(FORGOTTEN)) {
      texts.add(text);
    }
  }

  private static HistoryEvent scrubbed(HistoryEvent event, Set<String> texts) {
    Map<String, String> details = new LinkedHashMap<>();
    boolean changed = false;
    for (Map.Entry<String, String> detail : event.details().entrySet()) {
      String value = detail.getValue();
      for (String text : texts) {
        value = value.replace(text, FORGOTTEN);
      }
      changed |= !value.equals(detail.getValue());
      details.put(detail.getKey(), value);
    }
    return changed
        ? new HistoryEvent(event.id(), event.at(), event.event(), event.actor(), details)
        : event;
  }

  /**
   * Runs {@code work} on the transaction of {@code tx} and logs the entries its writes of {@code
   * PROFILE.md} and {@code MEMORY.md} added ({@code added}) and dropped ({@code removed}), in the
   * same transaction. GLOBAL buckets have no items and are not logged.
   */
  static <T> T recorded(
      BucketTransaction tx, Templates templates, Function<BucketTransaction, T> work) {
    if (tx.bucket().scope() == Scope.GLOBAL) {
      return work.apply(tx);
    }
    Map<WorkspacePath, Set<String>> placeholders = placeholders(templates);
    Map<WorkspacePath, Optional<FileEntry>> before = new HashMap<>();
    for (WorkspacePath path : StructuredEntries.FILES) {
      before.put(path, tx.entry(path));
    }
    T result = work.apply(tx);
    List<HistoryEvent> events = new ArrayList<>();
    String actor = actor();
    for (WorkspacePath path : StructuredEntries.FILES) {
      if (tx.entry(path).equals(before.get(path))) {
        continue;
      }
      Set<String> skipped = placeholders.get(path);
      Map<String, StructuredEntries.Entry> old =
          entries(tx.bucket(), path, tx.readBefore(path), skipped);
      Map<String, StructuredEntries.Entry> now = entries(tx.bucket(), path, tx.read(path), skipped);
      // the write's own time: the file's new update time
      Instant at = tx.entry(path).map(FileEntry::updateTime).orElse(Instant.EPOCH);
      old.forEach(
          (id, e) -> logged(events, now.containsKey(id), id, "removed", at, actor, path, e));
      now.forEach((id, e) -> logged(events, old.containsKey(id), id, "added", at, actor, path, e));
    }
    if (!events.isEmpty()) {
      ItemHistory.append(tx, events);
    }
    return result;
  }

  private static void logged(
      List<HistoryEvent> events,
      boolean stays,
      String id,
      String event,
      Instant at,
      String actor,
      WorkspacePath path,
      StructuredEntries.Entry entry) {
    if (!stays) {
      Map<String, String> details = new LinkedHashMap<>();
      details.put("file", path.value());
      details.put("section", entry.section());
      details.put("text", entry.body());
      events.add(new HistoryEvent(id, at, event, actor, details));
    }
  }

  /** The entries of {@code content} by id, the first of each id, {@code skipped} ones left out. */
  private static Map<String, StructuredEntries.Entry> entries(
      Bucket bucket, WorkspacePath path, Optional<String> content, Set<String> skipped) {
    Map<String, StructuredEntries.Entry> entries = new LinkedHashMap<>();
    for (StructuredEntries.Entry entry : StructuredEntries.parse(content.orElse("")).entries()) {
      if (!skipped.contains(entry.text())) {
        entries.putIfAbsent(id(bucket, path, entry.section(), entry.body()), entry);
      }
    }
    return entries;
  }

  // ---------------------------------------------------------------- change helpers

  private <T> T change(Item item, BiFunction<BucketTransaction, View, T> work) {
    T result =
        store.update(item.bucket(), tx -> work.apply(tx, new View(item.bucket(), files(tx))));
    written.written(item.bucket().agent(), item.bucket(), item.file());
    return result;
  }

  private static void checkFresh(BucketTransaction tx, Located at, Instant expected) {
    WorkspacePath holder = at.archived() != null ? ItemHistory.ARCHIVE : at.item().file();
    Instant current =
        tx.entry(holder)
            .map(FileEntry::updateTime)
            .orElse(Instant.EPOCH)
            .truncatedTo(ChronoUnit.MILLIS);
    if (!current.equals(expected.truncatedTo(ChronoUnit.MILLIS))) {
      throw new ToolException(
          ToolException.Kind.CONFLICT,
          "memory "
              + at.item().id()
              + " was changed at "
              + current
              + " ("
              + holder
              + "), after the updatedAt given ("
              + expected
              + "); read it again and edit that");
    }
  }

  /** The file of {@code at} with its entry's lines replaced by {@code raw} (null: left out). */
  private static String replaced(BucketTransaction tx, Located at, String raw) {
    String content = tx.read(at.item().file()).orElse("");
    if (at.block() != null) {
      return raw == null
          ? DailyEntries.remove(content, at.block())
          : DailyEntries.replace(content, at.block(), raw);
    }
    return StructuredEntries.parse(content).with(at.index(), raw);
  }

  /** The file of an archived {@code at} with its entry back. */
  private static String restored(BucketTransaction tx, Located at) {
    WorkspacePath file = at.item().file();
    Optional<String> content = tx.read(file);
    LocalDate date = file.dailyNoteDate();
    if (date != null) {
      return DailyEntries.append(content.orElse(null), date, at.sectionKey(), at.raw());
    }
    return insert(content.orElse(""), at.sectionKey(), at.raw());
  }

  /**
   * {@code content} with {@code entry} after the last line of its section ({@code ""}: before the
   * first {@code ##} heading); a section that is gone is added at the end.
   */
  static String insert(String content, String section, String entry) {
    List<String> lines = new ArrayList<>(List.of(content.replace("\r\n", "\n").split("\n", -1)));
    int start = -1;
    if (section.isEmpty()) {
      start = 0;
    } else {
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).startsWith("## ") && lines.get(i).substring(3).strip().equals(section)) {
          start = i + 1;
          break;
        }
      }
    }
    if (start < 0) {
      String base = content.stripTrailing();
      return (base.isEmpty() ? "" : base + "\n\n") + "## " + section + "\n" + entry + "\n";
    }
    int end = start;
    while (end < lines.size() && !lines.get(end).startsWith("## ")) {
      end++;
    }
    int last = end - 1;
    while (last >= start && lines.get(last).isBlank()) {
      last--;
    }
    int at = last < start ? start : last + 1;
    lines.add(at, entry);
    return String.join("\n", lines);
  }

  private void write(BucketTransaction tx, WorkspacePath file, String content, String argument) {
    int cap = caps.charCap(file);
    boolean tooLong =
        cap > 0
            ? content.length() > cap
            : content.getBytes(StandardCharsets.UTF_8).length > caps.fileMaxBytes();
    if (tooLong) {
      String problem =
          file
              + " would be longer than its cap ("
              + (cap > 0 ? cap + " characters" : caps.fileMaxBytes() + " bytes")
              + ")";
      throw argument == null
          ? new ToolException(ToolException.Kind.CONFLICT, problem + "; make room first")
          : ToolException.invalidArgument(argument, "with this " + argument + ", " + problem);
    }
    tx.write(file, content, WorkspaceRules.metaForNewFile(file));
  }

  private static List<Archived> archive(BucketTransaction tx) {
    return new ArrayList<>(ItemHistory.archived(tx.read(ItemHistory.ARCHIVE).orElse(null)));
  }

  private static dev.memstack.builtin.store.FileMeta meta() {
    return WorkspaceRules.metaForNewFile(ItemHistory.ARCHIVE);
  }

  private static Map<String, String> place(Item item) {
    Map<String, String> details = new LinkedHashMap<>();
    details.put("file", item.file().value());
    details.put("section", item.section());
    return details;
  }

  private Instant now() {
    return clock.instant();
  }

  private static ToolException notFound(String id) {
    return new ToolException(ToolException.Kind.NOT_FOUND, "no memory " + id);
  }

  // ---------------------------------------------------------------- ids

  /** The id of the entry with {@code text} in {@code section} of {@code path} in {@code bucket}. */
  static String id(Bucket bucket, WorkspacePath path, String section, String text) {
    String key = bucket.key() + "\n" + path.value() + "\n" + section + "\n" + normalized(text);
    return "b-" + Digests.sha256Hex(key).substring(0, 24);
  }

  private static String normalized(String text) {
    return text == null ? "" : text.strip().replaceAll("\\s+", " ");
  }

  // ---------------------------------------------------------------- reading a bucket

  /** The files of one bucket as a read sees them: the store's, or a transaction's. */
  private record Files(
      Supplier<List<FileEntry>> list,
      Function<WorkspacePath, Optional<FileEntry>> entry,
      Function<WorkspacePath, Optional<String>> read) {}

  private Files files(BucketTransaction tx) {
    return new Files(tx::list, tx::entry, tx::read);
  }

  private View view(Bucket bucket) {
    return new View(
        bucket,
        new Files(
            () -> store.list(bucket), p -> store.entry(bucket, p), p -> store.read(bucket, p)));
  }

  /**
   * One item where it is: its entry's lines ({@code raw}: a structured entry's with the bullet, a
   * daily entry's body), its section key (a daily entry's whole heading line), and either its index
   * in its file, its block in its note or its archive record.
   */
  private record Located(
      Item item,
      String raw,
      String sectionKey,
      int index,
      DailyEntries.Block block,
      Archived archived) {

    /** This entry with {@code text} instead: its new lines and its item with the new id. */
    Located withText(String text, MemoryItems items) {
      boolean daily = item.file().isDailyNote();
      String newRaw = daily ? DailyEntries.body(text) : StructuredEntries.bullet(text);
      String body = daily ? newRaw : new StructuredEntries.Entry(sectionKey, newRaw, 0).body();
      String id = id(item.bucket(), item.file(), sectionKey, body);
      Item edited =
          new Item(
              id,
              item.bucket(),
              item.file(),
              item.type(),
              item.section(),
              body,
              item.status(),
              item.createdAt(),
              item.updatedAt(),
              item.turn());
      return new Located(edited, newRaw, sectionKey, index, block, archived);
    }
  }

  /** One bucket's items, archive and history as read at one time. */
  private final class View {

    final Bucket bucket;
    final List<HistoryEvent> events;
    final Map<String, Located> located = new LinkedHashMap<>();
    private final Map<String, String> newer = new HashMap<>();
    private final Map<String, String> older = new HashMap<>();
    private final Map<String, Instant> added = new HashMap<>();

    View(Bucket bucket, Files files) {
      this.bucket = bucket;
      this.events = ItemHistory.events(files.list().get(), files.read());
      for (HistoryEvent event : events) {
        if (event.event().equals("updated") && event.detail("other") != null) {
          newer.put(event.id(), event.detail("other"));
          older.put(event.detail("other"), event.id());
        } else if (event.event().equals("added")) {
          added.put(event.id(), event.at());
        }
      }
      for (WorkspacePath path : StructuredEntries.FILES) {
        files.entry().apply(path).ifPresent(entry -> structured(path, entry, files));
      }
      for (FileEntry entry : files.list().get()) {
        if (entry.path().isDailyNote()) {
          daily(entry, files);
        }
      }
      files.entry().apply(ItemHistory.ARCHIVE).ifPresent(entry -> archived(entry, files));
    }

    private void structured(WorkspacePath path, FileEntry file, Files files) {
      Optional<String> content = files.read().apply(path);
      Map<String, StructuredEntries.Entry> entries =
          entries(bucket, path, content, placeholders.get(path));
      for (Map.Entry<String, StructuredEntries.Entry> keyed : entries.entrySet()) {
        String id = keyed.getKey();
        StructuredEntries.Entry entry = keyed.getValue();
        Item item =
            new Item(
                id,
                bucket,
                path,
                type(path),
                entry.section(),
                entry.body(),
                ACTIVE,
                createdAt(id, file.updateTime()),
                file.updateTime(),
                null);
        located.put(
            id, new Located(item, entry.text(), entry.section(), entry.index(), null, null));
      }
    }

    private void daily(FileEntry file, Files files) {
      String content = files.read().apply(file.path()).orElse("");
      for (DailyEntries.Block block : DailyEntries.parse(content)) {
        String id = id(bucket, file.path(), block.heading(), block.body());
        if (block.body().isEmpty() || located.containsKey(id)) {
          continue;
        }
        Item item = dailyItem(id, file.path(), block, ACTIVE, file.updateTime());
        located.put(id, new Located(item, block.body(), block.heading(), -1, block, null));
      }
    }

    private Item dailyItem(
        String id, WorkspacePath path, DailyEntries.Block block, String status, Instant updated) {
      Instant written = block.time(path.dailyNoteDate(), clock.getZone());
      return new Item(
          id,
          bucket,
          path,
          "daily",
          block.title(),
          block.body(),
          status,
          createdAt(id, written == null ? updated : written),
          updated,
          block.turn());
    }

    private void archived(FileEntry archive, Files files) {
      for (Archived entry :
          ItemHistory.archived(files.read().apply(ItemHistory.ARCHIVE).orElse(null))) {
        WorkspacePath path;
        try {
          path = WorkspacePath.of(entry.file());
        } catch (InvalidWorkspacePathException e) {
          continue; // edited by hand beyond reading
        }
        if (located.containsKey(entry.id())) {
          continue; // the same entry is back in its file (written again): that one counts
        }
        Item item;
        if (path.isDailyNote()) {
          DailyEntries.Block block = new DailyEntries.Block(entry.section(), entry.text(), 0, 0);
          item = dailyItem(entry.id(), path, block, entry.status(), archive.updateTime());
        } else {
          item =
              new Item(
                  entry.id(),
                  bucket,
                  path,
                  type(path),
                  entry.section(),
                  bodyOf(entry),
                  entry.status(),
                  createdAt(entry.id(), archivedAt(entry)),
                  archive.updateTime(),
                  null);
        }
        located.put(entry.id(), new Located(item, entry.text(), entry.section(), -1, null, entry));
      }
    }

    private static Instant archivedAt(Archived entry) {
      try {
        return Instant.parse(entry.at());
      } catch (java.time.format.DateTimeParseException e) {
        return Instant.EPOCH; // edited by hand beyond reading
      }
    }

    String bodyOf(Archived entry) {
      return entry.file().startsWith("memory/")
          ? entry.text()
          : new StructuredEntries.Entry(entry.section(), entry.text(), 0).body();
    }

    private Instant createdAt(String id, Instant fallback) {
      Instant time = follow(id, older, added::get);
      return time == null ? fallback : time;
    }

    /** The item {@code id} names, following the edits that replaced it; {@code null} if none. */
    Located resolve(String id) {
      return follow(id, newer, located::get);
    }

    Located require(String id) {
      Located found = resolve(id);
      if (found == null) {
        throw notFound(id);
      }
      return found;
    }

    boolean knows(String id) {
      return located.containsKey(id) || events.stream().anyMatch(e -> e.id().equals(id));
    }

    /** {@code id} and every id an edit linked to it, either way, transitively. */
    Set<String> chain(String id) {
      Set<String> chain = new LinkedHashSet<>();
      Deque<String> todo = new ArrayDeque<>(List.of(id));
      while (!todo.isEmpty()) {
        String at = todo.pop();
        if (!chain.add(at)) {
          continue;
        }
        for (HistoryEvent event : events) {
          String other = event.detail("other");
          if (event.event().equals("updated") && other != null) {
            if (event.id().equals(at)) {
              todo.push(other);
            } else if (other.equals(at)) {
              todo.push(event.id());
            }
          }
        }
      }
      return chain;
    }

    History history(String id) {
      Located live = resolve(id);
      Set<String> chain = chain(id);
      List<HistoryEvent> ofChain =
          new ArrayList<>(events.stream().filter(e -> chain.contains(e.id())).toList());
      ofChain.sort(Comparator.comparing(HistoryEvent::at));
      if (live == null) {
        List<HistoryEvent> own = ofChain.stream().filter(e -> e.id().equals(id)).toList();
        if (!own.isEmpty() && own.get(own.size() - 1).event().equals("forgotten")) {
          return new History(id, true, List.of(own.get(own.size() - 1)));
        }
        return new History(id, false, ofChain);
      }
      if (ofChain.stream().noneMatch(e -> e.event().equals("added"))) {
        Optional<HistoryEvent> firstEdit =
            ofChain.stream().filter(e -> e.event().equals("updated")).findFirst();
        Map<String, String> details = place(live.item());
        details.put("text", firstEdit.map(e -> e.detail("previous")).orElse(live.item().text()));
        ofChain.add(
            0,
            new HistoryEvent(
                firstEdit.map(HistoryEvent::id).orElse(live.item().id()),
                live.item().createdAt(),
                "added",
                null,
                details));
      }
      return new History(id, false, ofChain);
    }
  }

  /** The first value {@code value} has for {@code id} or an id {@code links} lead on to. */
  private static <T> T follow(String id, Map<String, String> links, Function<String, T> value) {
    Set<String> seen = new HashSet<>();
    for (String at = id; at != null && seen.add(at); at = links.get(at)) {
      T found = value.apply(at);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  private static String type(WorkspacePath path) {
    return path.isDailyNote() ? "daily" : path.value().equals("PROFILE.md") ? "profile" : "memory";
  }
}
