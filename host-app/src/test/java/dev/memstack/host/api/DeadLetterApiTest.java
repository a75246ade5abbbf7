package dev.memstack.host.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import dev.memstack.host.outbox.StackDeliveryPort;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.security.Caller;
import dev.memstack.host.testing.Eventually;
import dev.memstack.host.testing.SilentProvider;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.outbox.journal.DeadLetter;
import dev.memstack.outbox.journal.FileJournal;
import dev.memstack.outbox.journal.JournalRecord;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import dev.memstack.spi.TurnRejectedException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;

/** The dead-letter routes and the outbox answer's count, over MockMvc on a real engine. */
class DeadLetterApiTest {

  @TempDir Path dir;

  private final Picky picky = new Picky();
  private final StackMembers members =
      new StackMembers() {
        private final StackMember member =
            new StackMember("picky", "test", "test-plugin", 0, picky, getClass().getClassLoader());

        @Override
        public List<StackMember> enabled() {
          return List.of(member);
        }

        @Override
        public Optional<StackMember> find(String id) {
          return id.equals("picky") ? Optional.of(member) : Optional.empty();
        }
      };
  private OutboxEngine outbox;
  private MockMvc mvc;

  @BeforeEach
  void setUp() throws Exception {
    FileJournal journal = FileJournal.open(dir, 64 * 1024, true);
    // a dead letter left by a provider that is no longer configured
    Turn old = turn("old-1", "user:9");
    journal
        .deadLetters()
        .put(
            new DeadLetter(
                "3.gone",
                "gone",
                3,
                "user:9",
                "a1",
                "c1",
                "old-1",
                Instant.parse("2026-03-01T10:00:00Z"),
                Instant.parse("2026-03-01T10:00:01Z"),
                5,
                DeadLetter.FAILING,
                "java.lang.IllegalStateException: no"),
            JournalRecord.turn(old, Instant.parse("2026-03-01T10:00:00Z"), List.of("gone"))
                .encode());
    outbox =
        OutboxEngine.start(
            journal,
            OutboxSettingsBuilder.defaults().fastRetry().build(),
            new StackDeliveryPort(members, new ProviderCalls(new SimpleMeterRegistry())));
    mvc =
        MockMvcBuilders.standaloneSetup(
                new OutboxController(outbox), new DeadLetterController(outbox, members))
            .setControllerAdvice(new ApiExceptionHandler())
            .defaultRequest(get("/").requestAttr(Caller.ATTRIBUTE, Caller.unchecked()))
            .build();
  }

  @AfterEach
  void tearDown() {
    outbox.close();
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

  private String parkedId() {
    picky.refused.add("bad");
    outbox.enqueue(turn("bad", "user:1"), List.of("picky"));
    outbox.enqueue(turn("good", "user:1"), List.of("picky"));
    Eventually.within(
        Duration.ofSeconds(10), () -> assertThat(picky.stored).containsExactly("good"));
    return outbox.deadLetters().list("picky").get(0).id();
  }

  @Test
  void theListShowsEachDeadLetterWithoutItsTextAndFiltersByProvider() throws Exception {
    String id = parkedId();

    mvc.perform(get("/api/v1/outbox/dead-letters"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.count").value(2))
        .andExpect(jsonPath("$.deadLetters[0].id").value("3.gone"))
        .andExpect(jsonPath("$.deadLetters[1].id").value(id))
        .andExpect(jsonPath("$.deadLetters[1].provider").value("picky"))
        .andExpect(jsonPath("$.deadLetters[1].ownerKey").value("user:1"))
        .andExpect(jsonPath("$.deadLetters[1].turnId").value("bad"))
        .andExpect(jsonPath("$.deadLetters[1].reason").value("rejected"))
        .andExpect(jsonPath("$.deadLetters[1].attempts").value(1))
        .andExpect(jsonPath("$.deadLetters[1].userMessage").doesNotExist());
    mvc.perform(get("/api/v1/outbox/dead-letters").param("provider", "picky"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.count").value(1));
    mvc.perform(get("/api/v1/outbox/dead-letters").param("provider", "Not An Id"))
        .andExpect(status().isBadRequest())
        .andExpect(jsonPath("$.field").value("provider"));
    Eventually.within(
        Duration.ofSeconds(5),
        () -> assertThat(outbox.deadLetters().counts()).containsEntry("picky", 1));
    mvc.perform(get("/api/v1/outbox"))
        .andExpect(status().isOk())
        .andExpect(jsonPath("$.providers[0].id").value("picky"))
        .andExpect(jsonPath("$.providers[0].deadLetters").value(1));
  }

  @Test
  void aRetriedDeadLetterIsDeliveredAndGone() throws Exception {
    String id = parkedId();
    picky.refused.clear();

    mvc.perform(post("/api/v1/outbox/dead-letters/" + id + "/retry"))
        .andExpect(status().isAccepted())
        .andExpect(jsonPath("$.id").value(id))
        .andExpect(jsonPath("$.turnId").value("bad"))
        .andExpect(jsonPath("$.status").value("queued"));

    Eventually.within(
        Duration.ofSeconds(10), () -> assertThat(picky.stored).containsExactly("good", "bad"));
    assertThat(outbox.deadLetters().list("picky")).isEmpty();
    mvc.perform(post("/api/v1/outbox/dead-letters/" + id + "/retry"))
        .andExpect(status().isNotFound())
        .andExpect(jsonPath("$.error").value("not_found"));
  }

  @Test
  void deletingForgetsItAndBadOrUnknownIdsAreRefused() throws Exception {
    String id = parkedId();

    mvc.perform(delete("/api/v1/outbox/dead-letters/" + id)).andExpect(status().isNoContent());
    mvc.perform(delete("/api/v1/outbox/dead-letters/" + id)).andExpect(status().isNotFound());
    mvc.perform(delete("/api/v1/outbox/dead-letters/not-an-id"))
        .andExpect(status().isBadRequest())
        .andExpect(jsonPath("$.field").value("id"));
    mvc.perform(post("/api/v1/outbox/dead-letters/..%2Fcursors/retry"))
        .andExpect(status().isBadRequest());
    assertThat(picky.stored).containsExactly("good");
  }

  @Test
  void aRetryForAProviderNoLongerConfiguredIsAConflictAndKeepsIt() throws Exception {
    mvc.perform(post("/api/v1/outbox/dead-letters/3.gone/retry"))
        .andExpect(status().isConflict())
        .andExpect(jsonPath("$.message").value(org.hamcrest.Matchers.containsString("gone")));
    assertThat(outbox.deadLetters().find("3.gone")).isPresent();
  }

  /** Stores turns, refusing for good the ids in {@link #refused}. */
  private static final class Picky extends SilentProvider {
    final Set<String> refused = ConcurrentHashMap.newKeySet();
    final List<String> stored = new CopyOnWriteArrayList<>();

    Picky() {
      super("picky");
    }

    @Override
    public void syncTurn(Turn turn) {
      if (refused.contains(turn.turnId())) {
        throw new TurnRejectedException("turn " + turn.turnId() + " is refused");
      }
      stored.add(turn.turnId());
    }
  }
}
