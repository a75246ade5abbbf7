package dev.memstack.host.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file log: the conformance tests, plus crash leftovers and the first releases' layout. */
class FileConversationLogTest extends ConversationLogConformance {

  @TempDir Path dir;

  @Override
  protected ConversationLog open(int maxTurns, int maxMessageChars) {
    return new FileConversationLog(dir, new ConversationLimits(maxTurns, maxMessageChars));
  }

  @Override
  protected long storedCopies(String text) {
    return filesUnder(dir).filter(f -> read(f).contains(text)).count();
  }

  @Test
  void erasureLeavesNoFileThatHoldsTheOwnersTextNotEvenACrashLeftover() throws IOException {
    FileConversationLog log = new FileConversationLog(dir, ConversationLimits.DEFAULT);
    log.append(turn("t1", "user:1", "c1", "secret-marker-41 of one"));
    log.append(turn("t2", "user:1", "c2", "secret-marker-41 again"));
    log.append(turn("t3", "user:2", "c1", "two keeps this"));
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
        .extracting(ConversationEntry::userMessage)
        .containsExactly("one early", "one later", "one after the upgrade");
    assertThat(log.turns(A1, USER_2, "c1").orElseThrow())
        .extracting(ConversationEntry::userMessage)
        .containsExactly("two early");
    assertThat(log.forget(USER_1)).isEqualTo(3);
    assertThat(filesUnder(dir).filter(f -> read(f).contains("one early"))).isEmpty();
  }

  /** A log on the test folder keeping {@code turnsPerConversation}, with {@code turns} in it. */
  private FileConversationLog log(int turnsPerConversation, Turn... turns) {
    FileConversationLog log =
        new FileConversationLog(dir, new ConversationLimits(turnsPerConversation, 20_000));
    for (Turn turn : turns) {
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
}
