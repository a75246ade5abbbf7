package dev.memstack.host.window;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.conversation.ConversationConfiguration;
import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.shared.SharedStore;
import dev.memstack.host.testing.SharedTestDatabase;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two hosts on one PostgreSQL schema ({@code MEMSTACK_PG_URL}; skipped without it, failed on CI): a
 * summary one host made is reused by the other without asking its model, and owner erasure on one
 * host removes it for both.
 */
class SharedSummaryStoreTest {

  private SharedTestDatabase database;
  private final List<SharedStore> hosts = new ArrayList<>();

  @BeforeEach
  void database() {
    database = SharedTestDatabase.create();
  }

  @AfterEach
  void drop() {
    hosts.forEach(SharedStore::close);
    if (database != null) {
      database.drop();
    }
  }

  private Windows host(ScriptedChatModel model) {
    SharedStore store = database.openHost();
    hosts.add(store);
    ConversationLog log =
        new dev.memstack.host.conversation.PostgresConversationLog(
            store,
            ConversationConfiguration.MAX_TURNS,
            ConversationConfiguration.MAX_MESSAGE_CHARS);
    return new Windows(
        log,
        model,
        new TokenCounter(),
        new PostgresSummaryStore(store),
        WindowProperties.defaults(),
        Clock.systemUTC());
  }

  @Test
  void aSummaryMadeOnOneHostIsReusedOnAnotherAndErasedForBoth() {
    ScriptedChatModel modelA = new ScriptedChatModel("gpt-4o", user -> WindowsTest.SUMMARY);
    ScriptedChatModel modelB = new ScriptedChatModel("gpt-4o", user -> "another summary");
    Windows hostA = host(modelA);
    Windows hostB = host(modelB);
    SharedStore first = hosts.get(0);
    ConversationLog log =
        new dev.memstack.host.conversation.PostgresConversationLog(first, 200, 20_000);
    for (int i = 1; i <= 20; i++) {
      log.append(
          WindowsTest.turn(
              WindowsTest.OWNER,
              "c1",
              i,
              "Question number " + i + ": what about the weather in Lisbon today?",
              "Answer number " + i + ": it is sunny and mild, about twenty degrees."));
    }

    Window a = hostA.window(WindowsTest.request(600));
    Window b = hostB.window(WindowsTest.request(600));
    assertThat(modelA.calls()).hasSize(1);
    assertThat(modelB.calls()).isEmpty();
    assertThat(a.summary().cached()).isFalse();
    assertThat(b.summary().cached()).isTrue();
    assertThat(b.summary().text()).isEqualTo(WindowsTest.SUMMARY);
    assertThat(b.messages()).isEqualTo(a.messages());

    assertThat(hostB.forget(WindowsTest.OWNER)).isEqualTo(1);
    PostgresSummaryStore store = new PostgresSummaryStore(first);
    assertThat(store.summaries(WindowsTest.AGENT, WindowsTest.OWNER, "c1", Instant.EPOCH))
        .isEmpty();
    hostA.window(WindowsTest.request(600));
    assertThat(modelA.calls()).hasSize(2);
    hostA.forgetConversation(WindowsTest.AGENT, WindowsTest.OWNER, "c1");
    assertThat(store.summaries(WindowsTest.AGENT, WindowsTest.OWNER, "c1", Instant.EPOCH))
        .isEmpty();
  }
}
