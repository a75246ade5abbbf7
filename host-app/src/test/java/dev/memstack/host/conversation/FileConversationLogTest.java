package dev.memstack.host.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileConversationLogTest {

  @TempDir Path dir;

  private static final AgentId A1 = AgentId.of("a1");

  @Test
  void forgettingAnOwnerRemovesOnlyTheirTurnsFromEveryConversation() {
    FileConversationLog log = new FileConversationLog(dir, 200, 20_000);
    log.append(turn("t1", "user:1", "c1"));
    log.append(turn("t2", "user:2", "c1"));
    log.append(turn("t3", "user:1", "c2"));

    assertThat(log.forget(OwnerKey.of("user:1"))).isEqualTo(2);

    assertThat(log.turns(A1, "c1").orElseThrow())
        .extracting(LoggedTurn::turnId)
        .containsExactly("t2");
    assertThat(log.turns(A1, "c2")).isEmpty();
    assertThat(log.forget(OwnerKey.of("user:1"))).isZero();
    // a new log on the same folder sees the same state
    assertThat(new FileConversationLog(dir, 200, 20_000).turns(A1, "c1").orElseThrow()).hasSize(1);
  }

  @Test
  void aTurnIdIsLoggedOnceAndOldTurnsAreDroppedPastTheBound() {
    FileConversationLog log = new FileConversationLog(dir, 2, 20_000);
    log.append(turn("t1", "user:1", "c1"));
    log.append(turn("t1", "user:1", "c1"));
    log.append(turn("t2", "user:1", "c1"));
    log.append(turn("t3", "user:1", "c1"));
    List<LoggedTurn> turns = log.turns(A1, "c1").orElseThrow();
    assertThat(turns).extracting(LoggedTurn::turnId).containsExactly("t2", "t3");
  }

  private static LoggedTurn turn(String id, String owner, String conversation) {
    return new LoggedTurn(
        id,
        A1,
        OwnerKey.of(owner),
        conversation,
        "hello from " + owner,
        "hi",
        "api",
        Instant.parse("2026-11-29T10:00:00Z"));
  }
}
