package dev.memstack.host.outbox;

import static dev.memstack.host.outbox.Turns.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a JVM that is writing turns with SIGKILL ({@link Process#destroyForcibly()}) and checks
 * that every turn it acknowledged is delivered after the journal is opened again.
 */
class JournalCrashTest {

  private static final int ACKS_BEFORE_KILL = 600;

  @TempDir Path dir;

  @Test
  void everyAcknowledgedTurnIsDeliveredAfterTheWritingProcessIsKilled() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child =
        new ProcessBuilder(
                java,
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                JournalCrashChild.class.getName(),
                dir.toString(),
                "8")
            .redirectErrorStream(true)
            .start();
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                  // a line cut by the kill has no END and does not count
                  if (line.startsWith("ACK ") && line.endsWith(" END")) {
                    acknowledged.add(line.substring(4, line.length() - 4));
                  }
                }
              } catch (java.io.IOException e) {
                // the process is gone
              }
            });
    reader.start();
    try {
      eventually(
          Duration.ofSeconds(90),
          () -> {
            assertThat(child.isAlive()).as("the child JVM is running").isTrue();
            assertThat(acknowledged.size()).isGreaterThanOrEqualTo(ACKS_BEFORE_KILL);
          });
    } finally {
      child.destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      reader.join(10_000);
    }
    assertThat(child.exitValue()).as("killed by SIGKILL").isEqualTo(137);

    RecordingProvider recorder = new RecordingProvider("recorder");
    RecordingProvider second = new RecordingProvider("second");
    TestMembers members = new TestMembers().run(recorder).run(second);
    try (OutboxEngine outbox =
        OutboxEngine.onDisk(dir, Turns.fastRetry(OutboxSettings.defaults()), Turns.port(members))) {
      eventually(
          Duration.ofSeconds(60),
          () -> {
            assertThat(recorder.storedIds()).containsAll(acknowledged);
            assertThat(second.storedIds()).containsAll(acknowledged);
            assertThat(outbox.stats().get("recorder").pending()).isZero();
          });
      System.out.printf(
          "kill -9 journal test: %d turns acknowledged, %d delivered to recorder, %d to second"
              + " (%d written but not yet acknowledged when killed)%n",
          acknowledged.size(),
          recorder.stored.size(),
          second.stored.size(),
          recorder.stored.size() - acknowledged.size());
    }
  }
}
