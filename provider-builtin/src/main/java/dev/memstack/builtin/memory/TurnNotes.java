package dev.memstack.builtin.memory;

import dev.memstack.builtin.store.BucketTransaction;
import dev.memstack.builtin.store.WorkspaceStore;
import dev.memstack.builtin.workspace.Bucket;
import dev.memstack.builtin.workspace.WorkspacePath;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turn sync: appends each turn to the daily note of its day, one transaction per bucket, skipping
 * turns whose entry is there already. Thread-safe.
 */
record TurnNotes(
    BuiltinSettings settings, Clock clock, WorkspaceStore store, CoreFileSeeder seeder) {

  // the log lines are the memory's
  private static final Logger log = LoggerFactory.getLogger(WorkspaceMemory.class);
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT);

  /** Appends the turns (see {@link WorkspaceMemory#syncTurns}); the ids of those written. */
  Set<String> syncTurns(List<Turn> turns) {
    Map<Bucket, List<Turn>> byBucket = new LinkedHashMap<>();
    for (Turn turn : turns) {
      if (skipped(turn)) {
        continue;
      }
      seeder.ensureAgent(turn.agent());
      byBucket.computeIfAbsent(bucket(turn), b -> new ArrayList<>()).add(turn);
    }
    Set<String> written = new HashSet<>();
    byBucket.forEach(
        (bucket, ofBucket) ->
            written.addAll(
                store.update(
                    bucket,
                    tx -> {
                      Set<String> done = new HashSet<>();
                      for (Turn turn : ofBucket) {
                        if (append(tx, bucket, turn)) {
                          done.add(turn.turnId());
                        }
                      }
                      return done;
                    })));
    return written;
  }

  /**
   * The daily-note entries {@link #syncTurns} would append for {@code turns} (none for skipped).
   */
  List<String> entries(List<Turn> turns) {
    List<String> entries = new ArrayList<>(turns.size());
    for (Turn turn : turns) {
      if (!skipped(turn)) {
        entries.add(entry(bucket(turn), turn));
      }
    }
    return entries;
  }

  private boolean skipped(Turn turn) {
    return settings.skipCronTurns() && turn.triggerSource() == TriggerSource.CRON;
  }

  private Bucket bucket(Turn turn) {
    return settings.perOwner()
        ? Bucket.personal(turn.agent(), turn.owner())
        : Bucket.team(turn.agent());
  }

  private boolean append(BucketTransaction tx, Bucket bucket, Turn turn) {
    LocalDate date = turn.time().atZone(clock.getZone()).toLocalDate();
    WorkspacePath note = WorkspacePath.dailyNote(date);
    Optional<String> current = tx.read(note);
    if (current.isPresent() && DailyNotes.holds(current.get(), bucket, turn)) {
      return false;
    }
    String base = current.orElse("# " + date + "\n");
    String next = (base.endsWith("\n") ? base : base + "\n") + "\n" + entry(bucket, turn);
    if (next.getBytes(StandardCharsets.UTF_8).length > settings.fileMaxBytes()) {
      log.warn(
          "daily note {} of {} is full ({} bytes); turn {} is not written",
          note,
          bucket,
          settings.fileMaxBytes(),
          turn.turnId());
      return false;
    }
    tx.write(note, next, WorkspaceRules.metaForNewFile(note));
    return true;
  }

  /** The entry of {@code turn} in its daily note: a heading with its marker, then the messages. */
  private String entry(Bucket bucket, Turn turn) {
    ZonedDateTime time = turn.time().atZone(clock.getZone());
    return "### "
        + TIME.format(time)
        + " · "
        + turn.triggerSource().wireName()
        + " · conversation "
        + DailyNotes.gist(turn.conversationId(), 64)
        + " "
        + DailyNotes.marker(bucket, turn)
        + "\n**User:** "
        + DailyNotes.gist(turn.userMessage(), settings.turnGistChars())
        + (turn.assistantReply().isBlank()
            ? "" // nothing was answered: no empty line to recall
            : "\n**Assistant:** "
                + DailyNotes.gist(turn.assistantReply(), settings.turnGistChars()))
        + "\n";
  }
}
