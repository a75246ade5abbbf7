package dev.memstack.mem0;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Sent turn log")
class SentTurnLogTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey API_1 = OwnerKey.of("api:1");
  private static final OwnerKey API_2 = OwnerKey.of("api:2");

  private static Turn turn(String id) {
    return turn(AGENT, API_1, id);
  }

  private static Turn turn(AgentId agent, OwnerKey owner, String id) {
    return new Turn(
        id,
        agent,
        owner,
        "c1",
        "hello",
        "hi",
        TriggerSource.API,
        Instant.parse("2026-03-02T10:00:00Z"));
  }

  @Test
  @DisplayName("remembers turns across a reopen")
  void remembersTurnsAcrossAReopen(@TempDir Path dir) {
    SentTurnLog log = SentTurnLog.open(dir, 10);
    log.add(turn("t-1"));
    log.add(turn("t-2"));
    log.add(turn("t-1"));

    SentTurnLog reopened = SentTurnLog.open(dir, 10);

    assertThat(reopened.contains(turn("t-1"))).isTrue();
    assertThat(reopened.contains(turn("t-2"))).isTrue();
    assertThat(reopened.contains(turn("t-3"))).isFalse();
    assertThat(reopened.size()).isEqualTo(2);
  }

  @Test
  @DisplayName("keeps the most recent turns and compacts its file at twice the capacity")
  void keepsTheMostRecentTurnsAndCompacts(@TempDir Path dir) throws Exception {
    SentTurnLog log = SentTurnLog.open(dir, 3);
    for (int i = 1; i <= 7; i++) {
      log.add(turn("t-" + i));
    }

    assertThat(log.contains(turn("t-4"))).isFalse();
    assertThat(log.contains(turn("t-7"))).isTrue();
    assertThat(Files.readAllLines(dir.resolve(SentTurnLog.FILE_NAME), StandardCharsets.UTF_8))
        .containsExactly("a1\tapi:1\tt-5", "a1\tapi:1\tt-6", "a1\tapi:1\tt-7");
    SentTurnLog reopened = SentTurnLog.open(dir, 3);
    assertThat(reopened.contains(turn("t-5"))).isTrue();
    assertThat(reopened.contains(turn("t-1"))).isFalse();
  }

  @Test
  @DisplayName("tells the same turn id of two owners, or of two agents, apart")
  void tellsTheSameTurnIdOfTwoOwnersApart(@TempDir Path dir) {
    SentTurnLog log = SentTurnLog.open(dir, 10);
    log.add(turn(AGENT, API_1, "t-1"));

    assertThat(log.contains(turn(AGENT, API_1, "t-1"))).isTrue();
    assertThat(log.contains(turn(AGENT, API_2, "t-1"))).as("another owner").isFalse();
    assertThat(log.contains(turn(AgentId.of("a2"), API_1, "t-1"))).as("another agent").isFalse();
  }

  @Test
  @DisplayName("counts a bare turn id of an old log as sent for any owner")
  void countsABareTurnIdOfAnOldLogAsSent(@TempDir Path dir) throws Exception {
    Files.write(dir.resolve(SentTurnLog.FILE_NAME), List.of("t-old"), StandardCharsets.UTF_8);

    SentTurnLog log = SentTurnLog.open(dir, 10);

    assertThat(log.contains(turn(AGENT, API_1, "t-old"))).isTrue();
    assertThat(log.contains(turn(AGENT, API_2, "t-old"))).isTrue();
    assertThat(log.contains(turn(AGENT, API_1, "t-new"))).isFalse();
  }

  @Test
  @DisplayName("drops a forgotten owner's lines from memory and from the file")
  void dropsAForgottenOwnersLines(@TempDir Path dir) throws Exception {
    SentTurnLog log = SentTurnLog.open(dir, 10);
    log.add(turn(AGENT, API_1, "t-1"));
    log.add(turn(AGENT, API_2, "t-1"));
    log.add(turn(AGENT, API_2, "t-2"));

    assertThat(log.removeOwner(API_2)).isEqualTo(2);

    assertThat(log.contains(turn(AGENT, API_2, "t-1"))).isFalse();
    assertThat(log.contains(turn(AGENT, API_1, "t-1"))).isTrue();
    assertThat(Files.readString(dir.resolve(SentTurnLog.FILE_NAME), StandardCharsets.UTF_8))
        .doesNotContain("api:2");
  }
}
