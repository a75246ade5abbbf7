package dev.memstack.host.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileConversationLogTest {

  @TempDir Path dir;

  private static final AgentId A1 = AgentId.of("a1");
  private static final OwnerKey USER_1 = OwnerKey.of("user:1");
  private static final OwnerKey USER_2 = OwnerKey.of("user:2");

  @Test
  void forgettingAnOwnerRemovesOnlyTheirTurnsFromEveryConversation() {
    FileConversationLog log =
        log(
            200,
            turn("t1", "user:1", "c1"),
            turn("t2", "user:2", "c1"),
            turn("t3", "user:1", "c2"));

    assertThat(log.forget(USER_1)).isEqualTo(2);

    assertThat(log.turns(A1, USER_2, "c1").orElseThrow())
        .extracting(LoggedTurn::turnId)
        .containsExactly("t2");
    assertThat(log.turns(A1, USER_1, "c1")).isEmpty();
    assertThat(log.turns(A1, USER_1, "c2")).isEmpty();
    assertThat(log.forget(USER_1)).isZero();
    // a new log on the same folder sees the same state
    assertThat(new FileConversationLog(dir, 200, 20_000).turns(A1, USER_2, "c1").orElseThrow())
        .hasSize(1);
  }

  @Test
  void aTurnIdIsLoggedOnceAndOldTurnsAreDroppedPastTheBound() {
    FileConversationLog log =
        log(
            2,
            turn("t1", "user:1", "c1"),
            turn("t1", "user:1", "c1"),
            turn("t2", "user:1", "c1"),
            turn("t3", "user:1", "c1"));
    List<LoggedTurn> turns = log.turns(A1, USER_1, "c1").orElseThrow();
    assertThat(turns).extracting(LoggedTurn::turnId).containsExactly("t2", "t3");
  }

  @Test
  void theSameConversationAndTurnIdOfTwoOwnersAreTwoTurnsThatNeitherSeesOfTheOther() {
    FileConversationLog log =
        log(
            200,
            turn("shared-id", "user:1", "c1", "one says hello"),
            turn("shared-id", "user:2", "c1", "two says hello"));

    assertThat(log.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(LoggedTurn::userMessage)
        .containsExactly("one says hello");
    assertThat(log.turns(A1, USER_2, "c1").orElseThrow())
        .extracting(LoggedTurn::userMessage)
        .containsExactly("two says hello");
    assertThat(log.turns(AgentId.of("a2"), USER_1, "c1")).isEmpty();
  }

  @Test
  void oneOwnerFillingAConversationEvictsNoTurnOfAnother() {
    FileConversationLog log = log(3, turn("keep", "user:2", "c1"));
    for (int i = 0; i < 10; i++) {
      log.append(turn("flood-" + i, "user:1", "c1"));
    }

    assertThat(log.turns(A1, USER_2, "c1").orElseThrow())
        .extracting(LoggedTurn::turnId)
        .containsExactly("keep");
    assertThat(log.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(LoggedTurn::turnId)
        .containsExactly("flood-7", "flood-8", "flood-9");
  }

  @Test
  void erasureLeavesNoFileThatHoldsTheOwnersText() throws IOException {
    FileConversationLog log =
        log(
            200,
            turn("t1", "user:1", "c1", "secret-marker-41 of one"),
            turn("t2", "user:1", "c2", "secret-marker-41 again"),
            turn("t3", "user:2", "c1", "two keeps this"));
    // a temporary file left by a crash during a write of the owner's file
    Path ownerFile =
        filesUnder(dir).filter(f -> read(f).contains("secret-marker-41")).findFirst().orElseThrow();
    Files.writeString(ownerFile.resolveSibling(ownerFile.getFileName() + ".tmp"), read(ownerFile));

    log.forget(USER_1);

    assertThat(filesUnder(dir).filter(f -> read(f).contains("secret-marker-41"))).isEmpty();
    assertThat(filesUnder(dir).filter(f -> read(f).contains("user:1"))).isEmpty();
    assertThat(filesUnder(dir).filter(f -> read(f).contains("two keeps this"))).hasSize(1);
  }

  @Test
  void aFileOfTheFirstReleasesIsSplitPerOwnerAtStartAndThenDeleted() throws IOException {
    // the files of the first releases were named, as now, by the conversation id's hash
    FileConversationLog fresh = log(200, turn("probe", "user:9", "c1"));
    String hashed = filesUnder(dir).findFirst().orElseThrow().getFileName().toString();
    fresh.forget(OwnerKey.of("user:9"));
    Path legacy = dir.resolve("conversations").resolve("a1").resolve(hashed);
    Files.writeString(
        legacy,
        """
        {"agentId":"a1","conversationId":"c1","turns":[
         {"turnId":"t1","ownerKey":"user:1","userMessage":"one early","assistantReply":"ok",
          "triggerSource":"api","time":"2026-11-29T10:00:00Z"},
         {"turnId":"t1","ownerKey":"user:2","userMessage":"two early","assistantReply":"ok",
          "triggerSource":"api","time":"2026-11-29T10:01:00Z"},
         {"turnId":"t2","ownerKey":"user:1","userMessage":"one later","assistantReply":"ok",
          "triggerSource":"web","time":"2026-11-29T10:02:00Z"}]}
        """,
        StandardCharsets.UTF_8);
    Path halfWritten = legacy.resolveSibling(hashed + ".tmp");
    Files.writeString(halfWritten, "one early, half written");

    FileConversationLog log =
        log(
            200,
            turn("t3", "user:1", "c1", "one after the upgrade"),
            turn("t2", "user:1", "c1", "a repeat of an old id"));

    assertThat(legacy).doesNotExist();
    assertThat(halfWritten).doesNotExist();
    assertThat(log.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(LoggedTurn::userMessage)
        .containsExactly("one early", "one later", "one after the upgrade");
    assertThat(log.turns(A1, USER_2, "c1").orElseThrow())
        .extracting(LoggedTurn::userMessage)
        .containsExactly("two early");
    assertThat(log.forget(USER_1)).isEqualTo(3);
    assertThat(filesUnder(dir).filter(f -> read(f).contains("one early"))).isEmpty();
  }

  /** A log on the test folder keeping {@code turnsPerConversation}, with {@code turns} in it. */
  private FileConversationLog log(int turnsPerConversation, LoggedTurn... turns) {
    FileConversationLog log = new FileConversationLog(dir, turnsPerConversation, 20_000);
    for (LoggedTurn turn : turns) {
      log.append(turn);
    }
    return log;
  }

  private static Stream<Path> filesUnder(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).toList().stream();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static LoggedTurn turn(String id, String owner, String conversation) {
    return turn(id, owner, conversation, "hello from " + owner);
  }

  private static LoggedTurn turn(String id, String owner, String conversation, String message) {
    return new LoggedTurn(
        id,
        A1,
        OwnerKey.of(owner),
        conversation,
        message,
        "hi",
        "api",
        Instant.parse("2026-11-29T10:00:00Z"));
  }
}
