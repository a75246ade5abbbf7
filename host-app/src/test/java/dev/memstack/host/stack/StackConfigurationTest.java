package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.conversation.ConversationLog;
import dev.memstack.host.outbox.OutboxConfiguration;
import dev.memstack.host.outbox.OutboxProperties;
import dev.memstack.host.provider.CallOutcome;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.RequestCalls;
import dev.memstack.host.provider.StackMember;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.testing.TestMembers;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.TurnOutbox;
import dev.memstack.spi.AgentId;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class StackConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withUserConfiguration(StackConfiguration.class, OutboxConfiguration.class)
          .withBean(ConversationLog.class, RecordingConversationLog::new)
          .withPropertyValues("memstack.outbox.type=memory")
          .withBean(StackMembers.class, TestMembers::new);

  @Test
  void theStackBeansAreCreatedFromTheMemstackStackProperties() {
    runner
        .withPropertyValues("memstack.stack.context.deadline=2s", "memstack.outbox.max-pending=7")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(MemoryStack.class);
              assertThat(context).hasSingleBean(ProviderCalls.class);
              assertThat(context).hasSingleBean(SystemPromptCache.class);
              assertThat(context).hasSingleBean(TurnOutbox.class);
              assertThat(context.getBean(TurnOutbox.class)).isInstanceOf(OutboxEngine.class);
              StackProperties properties = context.getBean(StackProperties.class);
              assertThat(properties.context().deadline()).isEqualTo(Duration.ofSeconds(2));
              assertThat(context.getBean(OutboxProperties.class).maxPending()).isEqualTo(7);
              ContextAnswer answer =
                  context
                      .getBean(MemoryStack.class)
                      .context(ContextQuery.of(AgentId.of("a1"), null, "hello"));
              assertThat(answer.providers()).isEmpty();
            });
  }

  @Test
  void aBadValueStopsTheStartWithTheKeyInTheMessage() {
    runner
        .withPropertyValues("memstack.stack.breaker.failure-threshold=0")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "memstack.stack.breaker.failure-threshold must be at least 1"));
  }

  /**
   * Spring closes a bean before the beans it depends on: the request calls depend on the stack
   * members (the plugin registry in the host), so the call pool is closed, and its calls have ended
   * or been given up, before the registry closes the providers.
   */
  @Test
  void theCallPoolIsClosedBeforeTheStackMembersAre() {
    AtomicReference<RequestCalls> calls = new AtomicReference<>();
    AtomicReference<CallOutcome<String>> atMembersClose = new AtomicReference<>();
    new ApplicationContextRunner()
        .withUserConfiguration(StackConfiguration.class, OutboxConfiguration.class)
        .withBean(ConversationLog.class, RecordingConversationLog::new)
        .withPropertyValues("memstack.outbox.type=memory")
        .withBean(StackMembers.class, () -> new ClosingMembers(calls, atMembersClose))
        .run(context -> calls.set(context.getBean(RequestCalls.class)));

    assertThat(atMembersClose.get()).as("a call started while the members close").isNotNull();
    assertThat(atMembersClose.get().status()).isEqualTo(CallOutcome.Status.BUSY);
    assertThat(atMembersClose.get().detail()).isEqualTo("the memory stack is shut down");
  }

  /** Members that, when closed, try one more call through the request calls. */
  private static final class ClosingMembers implements StackMembers, AutoCloseable {
    private final TestMembers members = new TestMembers();
    private final StackMember member = members.add(new FakeProvider("p"));
    private final AtomicReference<RequestCalls> calls;
    private final AtomicReference<CallOutcome<String>> atClose;

    ClosingMembers(
        AtomicReference<RequestCalls> calls, AtomicReference<CallOutcome<String>> atClose) {
      this.calls = calls;
      this.atClose = atClose;
    }

    @Override
    public List<StackMember> enabled() {
      return members.enabled();
    }

    @Override
    public Optional<StackMember> find(String id) {
      return members.find(id);
    }

    @Override
    public void close() {
      atClose.set(
          calls
              .get()
              .start(member, ProviderCalls.PREFETCH, () -> "late")
              .await(System.nanoTime() + Duration.ofSeconds(1).toNanos()));
    }
  }
}
