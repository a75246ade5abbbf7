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
      if (settings.skipCronTurns() && turn.triggerSource() == TriggerSource.CRON) {
        continue;
      }
      seeder.ensureAgent(turn.agent());
      Bucket bucket =
          settings.perOwner()
              ? Bucket.personal(turn.agent(), turn.owner())
              : Bucket.team(turn.agent());
      byBucket.computeIfAbsent(bucket, b -> new ArrayList<>()).add(turn);
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

  private boolean append(BucketTransaction tx, Bucket bucket, Turn turn) {
    ZonedDateTime time = turn.time().atZone(clock.getZone());
    LocalDate date = time.toLocalDate();
    WorkspacePath note = WorkspacePath.dailyNote(date);
    String marker = DailyNotes.marker(bucket, turn);
    Optional<String> current = tx.read(note);
    if (current.isPresent() && DailyNotes.holds(current.get(), bucket, turn)) {
      return false;
    }
    String base = current.orElse("# " + date + "\n");
    String entry =
        "### "
            + TIME.format(time)
            + " · "
            + turn.triggerSource().wireName()
            + " · conversation "
            + DailyNotes.gist(turn.conversationId(), 64)
            + " "
            + marker
            + "\n**User:** "
            + DailyNotes.gist(turn.userMessage(), settings.turnGistChars())
            + (turn.assistantReply().isBlank()
                ? "" // nothing was answered: no empty line to recall
                : "\n**Assistant:** "
                    + DailyNotes.gist(turn.assistantReply(), settings.turnGistChars()))
            + "\n";
    String next = (base.endsWith("\n") ? base : base + "\n") + "\n" + entry;
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
}
