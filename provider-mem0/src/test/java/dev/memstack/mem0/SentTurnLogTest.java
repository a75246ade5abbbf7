package dev.memstack.mem0;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Sent turn log")
class SentTurnLogTest {

  @Test
  @DisplayName("remembers ids across a reopen")
  void remembersIdsAcrossAReopen(@TempDir Path dir) {
    SentTurnLog log = SentTurnLog.open(dir, 10);
    log.add("t-1");
    log.add("t-2");
    log.add("t-1");

    SentTurnLog reopened = SentTurnLog.open(dir, 10);

    assertThat(reopened.contains("t-1")).isTrue();
    assertThat(reopened.contains("t-2")).isTrue();
    assertThat(reopened.contains("t-3")).isFalse();
    assertThat(reopened.size()).isEqualTo(2);
  }

  @Test
  @DisplayName("keeps the most recent ids and compacts its file at twice the capacity")
  void keepsTheMostRecentIdsAndCompacts(@TempDir Path dir) throws Exception {
    SentTurnLog log = SentTurnLog.open(dir, 3);
    for (int i = 1; i <= 7; i++) {
      log.add("t-" + i);
    }

    assertThat(log.contains("t-4")).isFalse();
    assertThat(log.contains("t-7")).isTrue();
    assertThat(Files.readAllLines(dir.resolve(SentTurnLog.FILE_NAME), StandardCharsets.UTF_8))
        .containsExactly("t-5", "t-6", "t-7");
    SentTurnLog reopened = SentTurnLog.open(dir, 3);
    assertThat(reopened.contains("t-5")).isTrue();
    assertThat(reopened.contains("t-1")).isFalse();
  }
}
