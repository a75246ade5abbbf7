package dev.memstack.host.outbox;

import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import java.nio.file.Path;
import java.util.List;

/**
 * A host stand-in for {@link JournalCrashTest}, run as its own JVM: opens a journal outbox whose
 * providers are not running (so nothing is delivered here), submits turns from several threads and
 * prints {@code ACK <turnId> END} for every turn once {@code enqueue} returned, until it is killed.
 */
public final class JournalCrashChild {

  static final List<String> RECIPIENTS = List.of("recorder", "second");

  private JournalCrashChild() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int threads = Integer.parseInt(args[1]);
    TestMembers members = new TestMembers();
    RECIPIENTS.forEach(members::stop);
    OutboxEngine outbox = OutboxEngine.onDisk(dir, OutboxSettings.defaults(), Turns.port(members));
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread submitter =
          new Thread(
              () -> {
                for (int i = 0; ; i++) {
                  String id = "k" + thread + "-" + i;
                  outbox.enqueue(Turns.turn(id, "user:" + (i % 7)), RECIPIENTS);
                  synchronized (System.out) {
                    System.out.println("ACK " + id + " END");
                    System.out.flush();
                  }
                }
              });
      submitter.start();
    }
    Thread.sleep(Long.MAX_VALUE);
  }
}
