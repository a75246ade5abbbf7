package dev.memstack.builtin.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.builtin.store.ConversationBuffer.Conversation;
import dev.memstack.builtin.store.ConversationBuffer.Message;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link ConversationBuffer}, which every buffer passes: extend it and say how to
 * open a buffer on the storage under test (again on the same storage for {@link #reopen}), and how
 * to look for a text in what the buffer stores.
 */
public abstract class ConversationBufferConformance {

  protected static final AgentId A1 = AgentId.of("a1");
  protected static final AgentId A2 = AgentId.of("a2");
  protected static final OwnerKey ALICE = OwnerKey.of("user:alice");
  protected static final OwnerKey BOB = OwnerKey.of("user:bob");
  static final Instant T0 = Instant.parse("2026-04-01T09:30:00Z");

  /** A buffer on empty storage (the same storage for every call within one test). */
  protected abstract ConversationBuffer open(int maxMessages, int messageMaxChars);

  /** A second buffer on the same storage, as a restart or another host sees it. */
  protected ConversationBuffer reopen(int maxMessages, int messageMaxChars) {
    return open(maxMessages, messageMaxChars);
  }

  /** Whether two buffers on one storage may be appended to at once (several hosts). */
  protected boolean sharedAcrossInstances() {
    return false;
  }

  /** How many stored places (files, rows) hold {@code text}. */
  protected abstract long storedCopies(String text);

  protected static Turn turn(
      String turnId, AgentId agent, OwnerKey owner, String conversation, String user) {
    return new Turn(
        turnId, agent, owner, conversation, user, "Noted: " + user, TriggerSource.WEB, T0);
  }

  protected static Turn turn(String turnId, OwnerKey owner, String user) {
    return turn(turnId, A1, owner, "c1", user);
  }

  @Test
  void anUnknownConversationIsEmpty() {
    Conversation none = open(10, 100).read(A1, ALICE, "never");
    assertThat(none.totalMessages()).isZero();
    assertThat(none.messages()).isEmpty();
  }

  @Test
  void aTurnAddsTheUserMessageAndTheReplyInOrder() {
    ConversationBuffer buffer = open(10, 100);
    Conversation after = buffer.append(turn("t1", ALICE, "Where is the ferry?"));

    assertThat(after.totalMessages()).isEqualTo(2);
    assertThat(after.messages())
        .containsExactly(
            new Message("t1", "user", "Where is the ferry?", false, T0),
            new Message("t1", "assistant", "Noted: Where is the ferry?", false, T0));
    assertThat(buffer.read(A1, ALICE, "c1")).isEqualTo(after);
    assertThat(reopen(10, 100).read(A1, ALICE, "c1")).isEqualTo(after);
  }

  @Test
  void blankMessagesAreNotKept() {
    ConversationBuffer buffer = open(10, 100);
    Conversation after =
        buffer.append(new Turn("t1", A1, ALICE, "c1", "  ", "A reply", TriggerSource.WEB, T0));
    assertThat(after.totalMessages()).isEqualTo(1);
    assertThat(after.messages()).extracting(Message::role).containsExactly("assistant");
  }

  @Test
  void pastTheBoundTheOldestMessagesAreDroppedAndTheTotalIsKept() {
    ConversationBuffer buffer = open(3, 100);
    buffer.append(turn("t1", ALICE, "one"));
    buffer.append(turn("t2", ALICE, "two"));
    Conversation after = buffer.append(turn("t3", ALICE, "three"));

    assertThat(after.totalMessages()).isEqualTo(6);
    assertThat(after.messages())
        .extracting(Message::text)
        .containsExactly("Noted: two", "three", "Noted: three");
    assertThat(reopen(3, 100).read(A1, ALICE, "c1")).isEqualTo(after);
  }

  @Test
  void aLongMessageIsCutAndMarked() {
    ConversationBuffer buffer = open(10, 5);
    Conversation after = buffer.append(turn("t1", ALICE, "abcdefgh"));
    assertThat(after.messages().get(0)).isEqualTo(new Message("t1", "user", "abcde", true, T0));
    assertThat(after.messages().get(1).truncated()).isTrue();
    assertThat(after.messages().get(1).text()).isEqualTo("Noted");
  }

  @Test
  void aTurnAlreadyKeptIsNotAddedAgain() {
    ConversationBuffer buffer = open(10, 100);
    buffer.append(turn("t1", ALICE, "hello"));
    Conversation again = buffer.append(turn("t1", ALICE, "hello"));
    assertThat(again.totalMessages()).isEqualTo(2);
    assertThat(again.messages()).hasSize(2);
    assertThat(reopen(10, 100).append(turn("t1", ALICE, "hello")).totalMessages()).isEqualTo(2);
    assertThat(buffer.append(turn("t2", ALICE, "more")).totalMessages()).isEqualTo(4);
  }

  @Test
  void theSameConversationIdOfTwoOwnersOrTwoAgentsIsTwoBuffers() {
    ConversationBuffer buffer = open(10, 100);
    buffer.append(turn("same", A1, ALICE, "c1", "alice speaks"));
    buffer.append(turn("same", A1, BOB, "c1", "bob speaks"));
    buffer.append(turn("same", A2, ALICE, "c1", "alice to a2"));

    assertThat(buffer.read(A1, ALICE, "c1").messages())
        .extracting(Message::text)
        .containsExactly("alice speaks", "Noted: alice speaks");
    assertThat(buffer.read(A1, BOB, "c1").messages())
        .extracting(Message::text)
        .containsExactly("bob speaks", "Noted: bob speaks");
    assertThat(buffer.read(A2, ALICE, "c1").messages())
        .extracting(Message::text)
        .containsExactly("alice to a2", "Noted: alice to a2");
    assertThat(buffer.read(A1, ALICE, "c2").messages()).isEmpty();
  }

  @Test
  void forgettingAnOwnerRemovesEveryConversationOfTheirsAndNothingElse() {
    ConversationBuffer buffer = open(10, 100);
    buffer.append(turn("t1", A1, ALICE, "c1", "alice locker 4711"));
    buffer.append(turn("t2", A1, ALICE, "c2", "alice cat Quince"));
    buffer.append(turn("t3", A2, ALICE, "c1", "alice boat Skerry"));
    buffer.append(turn("t4", A1, BOB, "c1", "bob locker 1234"));
    assertThat(storedCopies("alice locker 4711")).isPositive();

    assertThat(buffer.forget(ALICE)).isEqualTo(3);

    for (String text : List.of("alice locker 4711", "alice cat Quince", "alice boat Skerry")) {
      assertThat(storedCopies(text)).as("stored copies of %s", text).isZero();
    }
    assertThat(buffer.read(A1, ALICE, "c1").messages()).isEmpty();
    assertThat(buffer.read(A2, ALICE, "c1").messages()).isEmpty();
    assertThat(buffer.read(A1, BOB, "c1").messages()).hasSize(2);
    assertThat(reopen(10, 100).read(A1, BOB, "c1").messages()).hasSize(2);
    assertThat(buffer.forget(ALICE)).isZero();
    // a conversation of the erased owner starts anew
    assertThat(buffer.append(turn("t5", ALICE, "fresh start")).totalMessages()).isEqualTo(2);
  }

  @Test
  void concurrentAppendsLoseNone() throws Exception {
    ConversationBuffer first = open(1_000, 100);
    ConversationBuffer second = sharedAcrossInstances() ? reopen(1_000, 100) : first;
    int perThread = 25;
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        ConversationBuffer buffer = t % 2 == 0 ? first : second;
        String prefix = "w" + t + "-";
        done.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    buffer.append(turn(prefix + i, ALICE, prefix + i));
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    Conversation all = first.read(A1, ALICE, "c1");
    assertThat(all.totalMessages()).isEqualTo(4L * perThread * 2);
    Set<String> turns = new HashSet<>();
    all.messages().forEach(m -> turns.add(m.turnId()));
    assertThat(turns).hasSize(4 * perThread);
    assertThat(second.read(A1, ALICE, "c1")).isEqualTo(all);
  }

  @Test
  void boundsMustBePositive() {
    assertThatThrownBy(() -> open(0, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxMessages");
    assertThatThrownBy(() -> open(10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("messageMaxChars");
  }
}
