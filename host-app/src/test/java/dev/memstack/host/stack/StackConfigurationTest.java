package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.outbox.OutboxConfiguration;
import dev.memstack.host.outbox.OutboxEngine;
import dev.memstack.host.outbox.OutboxProperties;
import dev.memstack.host.outbox.TurnOutbox;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.spi.AgentId;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class StackConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withUserConfiguration(StackConfiguration.class, OutboxConfiguration.class)
          .withPropertyValues("memstack.outbox.type=memory")
          .withBean(StackMembers.class, FakeStackMembers::new);

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
}
