package dev.memstack.host.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Turn;
import dev.memstack.support.Digests;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
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
    String hashed =
        filesUnder(dir)
            .findFirst()
            .orElseThrow()
            .getFileName()
            .toString()
            .replace(FileConversationLog.LINES, FileConversationLog.DOCUMENT);
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

  @Test
  void aTurnIsAppendedInPlaceAndTheFileIsRewrittenOnlyPastItsSlack() throws IOException {
    FileConversationLog log = log(4, turn("t0", "user:1", "c1"));
    Path file = filesUnder(dir).findFirst().orElseThrow();
    Object inode = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    for (int i = 1; i <= 7; i++) {
      log.append(turn("t" + i, "user:1", "c1"));
    }
    // the same file, one line more a turn: no rewrite while it holds up to 4 + 8 turns
    assertThat(Files.readAttributes(file, BasicFileAttributes.class).fileKey()).isEqualTo(inode);
    assertThat(Files.readAllLines(file)).hasSize(1 + 8);
    assertThat(log.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::turnId)
        .containsExactly("t4", "t5", "t6", "t7");
    for (int i = 8; i < 40; i++) {
      log.append(turn("t" + i, "user:1", "c1"));
      assertThat(Files.readAllLines(file).size() - 1).isLessThanOrEqualTo(4 + 8);
    }
    assertThat(log.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::turnId)
        .containsExactly("t36", "t37", "t38", "t39");
    log.append(turn("t38", "user:1", "c1", "a repeat"));
    assertThat(log.turns(A1, USER_1, "c1").orElseThrow()).hasSize(4);
  }

  @Test
  void aTurnIdThatJsonEscapesIsFoundInItsLine() {
    FileConversationLog log = log(200);
    for (String id :
        List.of("q\"uote", "ünï\u00e7ode", "curly{brace}", "q\"uote", "ünï\u00e7ode")) {
      log.append(turn(id, "user:1", "c1"));
    }
    assertThat(log.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::turnId)
        .containsExactly("q\"uote", "ünï\u00e7ode", "curly{brace}");
  }

  @Test
  void aLineACrashCutShortIsNotReadAndTheNextAppendCutsItOff() throws IOException {
    FileConversationLog log =
        log(200, turn("t1", "user:1", "c1", "first"), turn("t2", "user:1", "c1", "second"));
    Path file = filesUnder(dir).findFirst().orElseThrow();
    Files.write(
        file,
        "{\"turnId\":\"t3\",\"userMessage\":\"cut sh".getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.APPEND);

    assertThat(log(200).turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::userMessage)
        .containsExactly("first", "second");
    log.append(turn("t3", "user:1", "c1", "third, whole"));
    assertThat(read(file)).doesNotContain("cut sh").endsWith("\n");
    assertThat(log(200).turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::userMessage)
        .containsExactly("first", "second", "third, whole");
  }

  @Test
  void anOwnersFileOfTheLastReleasesIsReadAndMovedToLinesByTheNextAppend() throws IOException {
    log(200, turn("probe", "user:1", "c1")).forget(USER_1);
    Path folder = dir.resolve("conversations").resolve("a1").resolve(Digests.sha256Hex("user:1"));
    Path document = folder.resolve(Digests.sha256Hex("c1") + FileConversationLog.DOCUMENT);
    Files.createDirectories(folder);
    Files.writeString(
        document,
        """
        {"agentId":"a1","ownerKey":"user:1","conversationId":"c1","turns":[
         {"turnId":"t1","userMessage":"kept from before","assistantReply":"ok",
          "triggerSource":"api","time":"2026-11-29T10:00:00Z"}]}
        """,
        StandardCharsets.UTF_8);

    FileConversationLog log = log(200);
    assertThat(log.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::userMessage)
        .containsExactly("kept from before");
    assertThat(log.conversations(A1, USER_1)).hasSize(1);
    log.append(turn("t1", "user:1", "c1", "a repeat of its id"));
    log.append(turn("t2", "user:1", "c1", "after the upgrade"));

    assertThat(document).doesNotExist();
    assertThat(folder.resolve(Digests.sha256Hex("c1") + FileConversationLog.LINES)).exists();
    assertThat(log(200).turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::userMessage)
        .containsExactly("kept from before", "after the upgrade");
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
