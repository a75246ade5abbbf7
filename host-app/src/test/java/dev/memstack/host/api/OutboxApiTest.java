package dev.memstack.host.api;

import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.memstack.host.conversation.ConversationLimits;
import dev.memstack.host.conversation.FileConversationLog;
import dev.memstack.host.outbox.StackDeliveryPort;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.security.AccessPolicy;
import dev.memstack.host.security.Caller;
import dev.memstack.host.testing.SilentProvider;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.OwnerEraser;
import dev.memstack.outbox.TurnOutboxFullException;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.Capability;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/** {@code GET /api/v1/outbox} and {@code DELETE /api/v1/owners/{ownerKey}/memory} over MockMvc. */
class OutboxApiTest {

  @TempDir Path dir;

  private final Keeper keeper = new Keeper();
  private final StackMembers members =
      new StackMembers() {
        private final StackMember member =
            new StackMember(
                "keeper", "test", "test-plugin", 0, keeper, getClass().getClassLoader());

        @Override
        public List<StackMember> enabled() {
          return List.of(member);
        }

        @Override
        public Optional<StackMember> find(String id) {
          return id.equals("keeper") ? Optional.of(member) : Optional.empty();
        }

        @Override
        public List<String> disabled() {
          return List.of("sleeper");
        }
      };
  private OutboxEngine outbox;
  private MockMvc mvc;

  @BeforeEach
  void setUp() {
    outbox =
        OutboxEngine.onDisk(
            dir,
            OutboxSettingsBuilder.defaults().eraseWait(Duration.ofSeconds(5)).build(),
            new StackDeliveryPort(members, new ProviderCalls(new SimpleMeterRegistry())));
    mvc = mvc(outbox);
  }

  @AfterEach
  void tearDown() {
    outbox.close();
  }

  private MockMvc mvc(OwnerEraser eraser) {
    return MockMvcBuilders.standaloneSetup(
            new OutboxController(outbox),
            new OwnerMemoryController(
                eraser,
                new FileConversationLog(dir, ConversationLimits.DEFAULT),
                new dev.memstack.host.window.Windows(
                    new FileConversationLog(dir, ConversationLimits.DEFAULT),
                    dev.memstack.spi.LanguageModel.none(),
                    new dev.memstack.host.window.TokenCounter(),
                    new dev.memstack.host.window.FileSummaryStore(dir),
                    dev.memstack.host.window.WindowProperties.defaults(),
                    java.time.Clock.systemUTC()),
                new AccessPolicy()))
        .setControllerAdvice(new ApiExceptionHandler())
        // the caller the security filter puts on every request of an unchecked host
        .defaultRequest(get("/").requestAttr(Caller.ATTRIBUTE, Caller.unchecked()))
        .build();
  }

  private static Turn turn(String id, String owner) {
    return new Turn(
        id,
        AgentId.of("a1"),
        OwnerKey.of(owner),
        "c1",
        "hello " + id,
        "ok",
        TriggerSource.API,
        Instant.parse("2026-03-02T10:00:00Z"));
  }

  @Test
  void theOutboxAnswerShowsEachProvidersBacklogAndTheJournal() throws Exception {
    outbox.enqueue(turn("t1", "user:1"), List.of("keeper", "sleeper"));
    outbox.enqueue(turn("t2", "user:2"), List.of("keeper", "sleeper"));
    Thread.sleep(20);

    mvc.perform(get("/api/v1/outbox"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.type").value("journal"))
        .andExpect(jsonPath("$.providers[0].id").value("keeper"))
        .andExpect(jsonPath("$.providers[1].id").value("sleeper"))
        .andExpect(jsonPath("$.providers[1].pending").value(2))
        .andExpect(jsonPath("$.providers[1].pendingTurns").value(2))
        .andExpect(jsonPath("$.providers[1].oldestAgeMs").value(greaterThanOrEqualTo(20)))
        .andExpect(jsonPath("$.providers[1].oldestAge").isString())
        .andExpect(jsonPath("$.providers[1].failedAttempts").isNumber())
        .andExpect(jsonPath("$.journal.accepted").value(2))
        .andExpect(jsonPath("$.journal.segments").value(1))
        .andExpect(jsonPath("$.journal.fsync").value(true));
  }

  @Test
  void erasingAnOwnerListsEveryProvidersOutcome() throws Exception {
    outbox.enqueue(turn("t1", "user:1"), List.of("keeper", "sleeper"));
    outbox.enqueue(turn("t2", "user:2"), List.of("keeper", "sleeper"));

    mvc.perform(delete("/api/v1/owners/user:1/memory"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.ownerKey").value("user:1"))
        .andExpect(jsonPath("$.providers[0].id").value("keeper"))
        .andExpect(jsonPath("$.providers[0].outcome").value("erased"))
        .andExpect(jsonPath("$.providers[1].id").value("sleeper"))
        .andExpect(jsonPath("$.providers[1].outcome").value("queued"))
        .andExpect(jsonPath("$.providers[1].droppedPending").value(1))
        .andExpect(jsonPath("$.providers[1].detail").isString());
    org.assertj.core.api.Assertions.assertThat(keeper.forgotten).containsExactly("user:1");
  }

  @Test
  void anInvalidOwnerKeyIsRefusedNamingIt() throws Exception {
    mvc.perform(delete("/api/v1/owners/User:1/memory"))
        .andExpect(status().isBadRequest())
        .andExpect(jsonPath("$.error").value("bad_request"))
        .andExpect(jsonPath("$.field").value("ownerKey"))
        .andExpect(jsonPath("$.message").isString());
    org.assertj.core.api.Assertions.assertThat(keeper.forgotten).isEmpty();
  }

  @Test
  void anErasureTheJournalCannotTakeAnswers503WithRetryAfter() throws Exception {
    OwnerEraser full =
        owner -> {
          throw new TurnOutboxFullException(null, "the turn journal cannot be written right now");
        };
    mvc(full)
        .perform(delete("/api/v1/owners/user:1/memory"))
        .andExpect(status().isServiceUnavailable())
        .andExpect(header().exists("Retry-After"))
        .andExpect(jsonPath("$.error").value("unavailable"));
  }

  /** A provider that forgets. */
  private static final class Keeper extends SilentProvider {
    final List<String> forgotten = new CopyOnWriteArrayList<>();

    Keeper() {
      super("keeper");
    }

    @Override
    public Set<Capability> capabilities() {
      return Set.of(Capability.FORGET);
    }

    @Override
    public long forget(OwnerKey owner) {
      forgotten.add(owner.value());
      return 1;
    }
  }
}
