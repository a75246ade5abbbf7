package dev.memstack.outbox;

import dev.memstack.outbox.journal.CursorStore.ParkedErase;
import dev.memstack.outbox.journal.Journal;
import java.util.ArrayList;
import java.util.List;

/**
 * A lane's next piece of work: exactly one field is set; {@code entries} is one erasure or one or
 * more turns in journal order.
 */
record Work(Urgent urgent, ParkedErase parked, List<Journal.Entry> entries) {

  /**
   * The turns from the head of {@code queue} on (which must not be empty), before the first erasure
   * and {@code durable}, up to {@code batch}; or the head erasure alone.
   */
  static Work turnsFrom(Iterable<Journal.Entry> queue, long durable, int batch) {
    List<Journal.Entry> entries = new ArrayList<>();
    for (Journal.Entry entry : queue) {
      if (entries.isEmpty() && entry.erase()) {
        return new Work(null, null, List.of(entry));
      }
      if (entry.erase() || entry.position() >= durable || entries.size() == batch) {
        break;
      }
      entries.add(entry);
    }
    return new Work(null, null, entries);
  }

  /** What it is, for logs. */
  String describe() {
    if (entries != null && !entries.get(0).erase()) {
      return entries.size() == 1
          ? "outbox record " + entries.get(0).position()
          : "outbox records "
              + entries.get(0).position()
              + "-"
              + entries.get(entries.size() - 1).position();
    }
    return "an owner erasure";
  }
}
