package dev.memstack.host.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link ConversationLog}, which every log passes: extend it and say how to open a
 * log on the storage under test (again on the same storage for {@link #reopen}), and how to look
 * for an erased owner's text in what the log stores.
 */
abstract class ConversationLogConformance {

  static final AgentId A1 = AgentId.of("a1");
  static final OwnerKey USER_1 = OwnerKey.of("user:1");
  static final OwnerKey USER_2 = OwnerKey.of("user:2");

  /** A log on empty storage (the same storage for every call within one test). */
  protected abstract ConversationLog open(int maxTurns, int maxMessageChars);

  /** A second log on the same storage, as a restart or another host sees it. */
  protected ConversationLog reopen(int maxTurns, int maxMessageChars) {
    return open(maxTurns, maxMessageChars);
  }

  /** Whether two logs on one storage may be written at once (several hosts on one database). */
  protected boolean sharedAcrossInstances() {
    return false;
  }

  /** How many stored places (files, rows) hold {@code text}. */
  protected abstract long storedCopies(String text);

  @Test
  void forgettingAnOwnerRemovesOnlyTheirTurnsFromEveryConversation() {
    ConversationLog log = open(200, 20_000);
    log.append(turn("t1", "user:1", "c1"));
    log.append(turn("t2", "user:2", "c1"));
    log.append(turn("t3", "user:1", "c2"));

    assertThat(log.forget(USER_1)).isEqualTo(2);

    assertThat(log.turns(A1, USER_2, "c1").orElseThrow())
        .extracting(ConversationEntry::turnId)
        .containsExactly("t2");
    assertThat(log.turns(A1, USER_1, "c1")).isEmpty();
    assertThat(log.turns(A1, USER_1, "c2")).isEmpty();
    assertThat(log.forget(USER_1)).isZero();
    // a new log on the same storage sees the same state
    assertThat(reopen(200, 20_000).turns(A1, USER_2, "c1").orElseThrow()).hasSize(1);
  }

  @Test
  void itListsTheOwnerKeysItHoldsAsStored() {
    ConversationLog log = open(200, 20_000);
    assertThat(log.ownerKeys()).isEmpty();
    log.append(turn("t1", "user:1", "c1"));
    log.append(turn("t2", "user:2", "c1"));
    log.append(turn("t3", "user:1", "c2"));
    log.append(turn("t4", "user:a\u200bb", "c1"));

    assertThat(reopen(200, 20_000).ownerKeys())
        .containsExactlyInAnyOrder("user:1", "user:2", "user:a\u200bb");
    log.forget(USER_1);
    assertThat(log.ownerKeys()).containsExactlyInAnyOrder("user:2", "user:a\u200bb");
  }

  @Test
  void aTurnIdIsLoggedOnceAndOldTurnsAreDroppedPastTheBound() {
    ConversationLog log = open(2, 20_000);
    log.append(turn("t1", "user:1", "c1"));
    log.append(turn("t1", "user:1", "c1"));
    log.append(turn("t2", "user:1", "c1"));
    log.append(turn("t3", "user:1", "c1"));
    List<ConversationEntry> turns = log.turns(A1, USER_1, "c1").orElseThrow();
    assertThat(turns).extracting(ConversationEntry::turnId).containsExactly("t2", "t3");
  }

  @Test
  void theSameConversationAndTurnIdOfTwoOwnersAreTwoTurnsThatNeitherSeesOfTheOther() {
    ConversationLog log = open(200, 20_000);
    log.append(turn("shared-id", "user:1", "c1", "one says hello"));
    log.append(turn("shared-id", "user:2", "c1", "two says hello"));

    assertThat(log.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::userMessage)
        .containsExactly("one says hello");
    assertThat(log.turns(A1, USER_2, "c1").orElseThrow())
        .extracting(ConversationEntry::userMessage)
        .containsExactly("two says hello");
    assertThat(log.turns(AgentId.of("a2"), USER_1, "c1")).isEmpty();
  }

  @Test
  void oneOwnerFillingAConversationEvictsNoTurnOfAnother() {
    ConversationLog log = open(3, 20_000);
    log.append(turn("keep", "user:2", "c1"));
    for (int i = 0; i < 10; i++) {
      log.append(turn("flood-" + i, "user:1", "c1"));
    }

    assertThat(log.turns(A1, USER_2, "c1").orElseThrow())
        .extracting(ConversationEntry::turnId)
        .containsExactly("keep");
    assertThat(log.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::turnId)
        .containsExactly("flood-7", "flood-8", "flood-9");
  }

  @Test
  void messagesAreCutAndTheTurnKeepsItsFields() {
    ConversationLog log = open(200, 10);
    log.append(turn("t1", "user:1", "c1", "0123456789 and more"));
    ConversationEntry logged = log.turns(A1, USER_1, "c1").orElseThrow().get(0);
    assertThat(logged.userMessage()).isEqualTo("0123456789 …");
    assertThat(logged.assistantReply()).isEqualTo("hi");
    assertThat(logged.triggerSource()).isEqualTo("api");
    assertThat(logged.time()).isEqualTo(Instant.parse("2026-11-29T10:00:00Z"));
    assertThat(logged.ownerKey()).isEqualTo(USER_1.value());
  }

  @Test
  void concurrentAppendsOfOneConversationLoseNoTurn() throws Exception {
    ConversationLog log = open(200, 20_000);
    ConversationLog other = sharedAcrossInstances() ? reopen(200, 20_000) : log;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        ConversationLog target = i % 2 == 0 ? log : other;
        String id = "t" + i;
        done.add(pool.submit(() -> target.append(turn(id, "user:1", "c1"))));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    assertThat(log.turns(A1, USER_1, "c1").orElseThrow()).hasSize(40);
  }

  @Test
  void erasureLeavesNoStoredCopyOfTheOwnersText() {
    ConversationLog log = open(200, 20_000);
    log.append(turn("t1", "user:1", "c1", "secret-marker-41 of one"));
    log.append(turn("t2", "user:1", "c2", "secret-marker-41 again"));
    log.append(turn("t3", "user:2", "c1", "two keeps this"));
    assertThat(storedCopies("secret-marker-41")).isPositive();

    log.forget(USER_1);

    assertThat(storedCopies("secret-marker-41")).isZero();
    assertThat(storedCopies("user:1")).isZero();
    assertThat(storedCopies("two keeps this")).isEqualTo(1);
  }

  @Test
  void anOwnersConversationsAreListedNewestFirstWithTheirTurnCounts() {
    ConversationLog log = open(200, 20_000);
    log.append(turn("t1", "user:1", "old", "a", at("2026-11-29T08:00:00Z")));
    log.append(turn("t2", "user:1", "old", "b", at("2026-11-29T09:00:00Z")));
    log.append(turn("t3", "user:1", "new", "c", at("2026-11-29T11:00:00Z")));
    log.append(turn("t4", "user:1", "tie-b", "d", at("2026-11-29T10:00:00Z")));
    log.append(turn("t5", "user:1", "tie-a", "e", at("2026-11-29T10:00:00Z")));
    log.append(turn("t6", "user:2", "other", "f", at("2026-11-29T12:00:00Z")));
    log.append(
        new Turn(
            "t7",
            AgentId.of("a2"),
            USER_1,
            "other-agent",
            "g",
            "hi",
            TriggerSource.API,
            at("2026-11-29T13:00:00Z")));

    assertThat(log.conversations(A1, USER_1))
        .containsExactly(
            new ConversationSummary("new", 1, at("2026-11-29T11:00:00Z")),
            new ConversationSummary("tie-a", 1, at("2026-11-29T10:00:00Z")),
            new ConversationSummary("tie-b", 1, at("2026-11-29T10:00:00Z")),
            new ConversationSummary("old", 2, at("2026-11-29T09:00:00Z")));
    assertThat(log.conversations(A1, USER_2))
        .extracting(ConversationSummary::conversationId)
        .containsExactly("other");
    assertThat(log.conversations(A1, OwnerKey.of("user:3"))).isEmpty();
    assertThat(reopen(200, 20_000).conversations(A1, USER_1)).hasSize(4);
  }

  @Test
  void anOwnersRecentTurnsAreCountedFromATimeOnInEveryConversation() {
    ConversationLog log = open(200, 20_000);
    log.append(turn("t1", "user:1", "old", "a", at("2026-11-29T08:00:00Z")));
    log.append(turn("t2", "user:1", "old", "b", at("2026-11-29T10:00:00Z")));
    log.append(turn("t3", "user:1", "new", "c", at("2026-11-29T10:30:00Z")));
    log.append(turn("t4", "user:2", "new", "d", at("2026-11-29T10:30:00Z")));

    Instant from = at("2026-11-29T10:00:00Z");
    assertThat(log.turnsSince(A1, USER_1, from)).as("at or after, in both").isEqualTo(2);
    assertThat(log.turnsSince(A1, USER_1, at("2026-11-29T07:00:00Z"))).isEqualTo(3);
    assertThat(log.turnsSince(A1, USER_2, from)).isEqualTo(1);
    assertThat(log.turnsSince(AgentId.of("a2"), USER_1, from)).isZero();
    assertThat(log.turnsSince(A1, OwnerKey.of("user:3"), from)).isZero();
  }

  @Test
  void deletingAConversationRemovesOnlyThatOwnersTurnsOfIt() {
    ConversationLog log = open(200, 20_000);
    log.append(turn("t1", "user:1", "c1", "secret-marker-77 first"));
    log.append(turn("t2", "user:1", "c1", "secret-marker-77 second"));
    log.append(turn("t3", "user:1", "c2", "one keeps this"));
    log.append(turn("t4", "user:2", "c1", "two keeps this"));

    assertThat(log.deleteConversation(A1, USER_1, "c1")).isEqualTo(2);

    assertThat(log.turns(A1, USER_1, "c1")).isEmpty();
    assertThat(log.turns(A1, USER_1, "c2").orElseThrow()).hasSize(1);
    assertThat(log.turns(A1, USER_2, "c1").orElseThrow()).hasSize(1);
    assertThat(log.conversations(A1, USER_1))
        .extracting(ConversationSummary::conversationId)
        .containsExactly("c2");
    assertThat(storedCopies("secret-marker-77")).isZero();
    assertThat(log.deleteConversation(A1, USER_1, "c1")).isZero();
    assertThat(log.deleteConversation(A1, USER_1, "never")).isZero();
    assertThat(log.deleteConversation(AgentId.of("a2"), USER_1, "c2")).isZero();
    assertThat(reopen(200, 20_000).turns(A1, USER_1, "c1")).isEmpty();
    // the conversation starts afresh, and a turn id used before is taken again
    log.append(turn("t1", "user:1", "c1", "again"));
    assertThat(log.turns(A1, USER_1, "c1").orElseThrow())
        .extracting(ConversationEntry::userMessage)
        .containsExactly("again");
  }

  static Instant at(String time) {
    return Instant.parse(time);
  }

  static Turn turn(String id, String owner, String conversation, String message, Instant time) {
    return new Turn(
        id, A1, OwnerKey.of(owner), conversation, message, "hi", TriggerSource.API, time);
  }

  static Turn turn(String id, String owner, String conversation) {
    return turn(id, owner, conversation, "hello from " + owner);
  }

  static Turn turn(String id, String owner, String conversation, String message) {
    return new Turn(
        id,
        A1,
        OwnerKey.of(owner),
        conversation,
        message,
        "hi",
        TriggerSource.API,
        Instant.parse("2026-11-29T10:00:00Z"));
  }
}
