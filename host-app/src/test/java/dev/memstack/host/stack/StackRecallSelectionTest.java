package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.outbox.OutboxSettings;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.Recall;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A context call's {@code providers}: recall from the named instances only. */
class StackRecallSelectionTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey OWNER = OwnerKey.of("user:1");

  @AutoClose private final StackHarness harness = new StackHarness();
  private final AtomicInteger rightCalls = new AtomicInteger();

  private MemoryStack stack() {
    FakeProvider left = new FakeProvider("left").blocks("left's shared memory");
    left.recall = request -> Recall.of(List.of(left.item("left remembers", 0.9)));
    FakeProvider right = new FakeProvider("right").blocks("right's shared memory");
    right.recall =
        request -> {
          rightCalls.incrementAndGet();
          return Recall.of(List.of(right.item("right remembers", 0.9)));
        };
    harness.members.add(left);
    harness.members.add(right);
    harness.members.stop("sleeping");
    return harness.start(
        StackProperties.defaults(),
        OutboxSettings.defaults(),
        new SystemPromptCache(),
        Clock.systemUTC());
  }

  @Test
  @DisplayName("only the named providers are asked to recall; the others are reported skipped")
  void recallsFromTheNamedOnly() {
    MemoryStack stack = stack();

    ContextAnswer answer =
        stack.context(
            new ContextQuery(AGENT, OWNER, null, "q", 5, false, Set.of("left"), false, false));

    assertThat(answer.recall()).extracting(RecalledMemory::text).containsExactly("left remembers");
    assertThat(rightCalls).hasValue(0);
    assertThat(answer.providers())
        .extracting(ProviderReport::id, ProviderReport::status)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("left", ProviderReport.OK),
            org.assertj.core.groups.Tuple.tuple("right", ProviderReport.SKIPPED),
            org.assertj.core.groups.Tuple.tuple("sleeping", ProviderReport.DISABLED));
    // the shared memory still comes from every provider
    assertThat(answer.systemPrompt()).contains("left's shared memory", "right's shared memory");
  }

  @Test
  @DisplayName("without providers every enabled provider recalls")
  void everyProviderByDefault() {
    MemoryStack stack = stack();

    ContextAnswer answer = stack.context(new ContextQuery(AGENT, OWNER, null, "q", 5, false));

    assertThat(answer.recall())
        .extracting(RecalledMemory::text)
        .containsExactlyInAnyOrder("left remembers", "right remembers");
  }

  @Test
  @DisplayName("an id that names no configured instance is refused, naming it and the known ones")
  void refusesUnknownIds() {
    MemoryStack stack = stack();

    assertThatThrownBy(
            () ->
                stack.context(
                    new ContextQuery(
                        AGENT, OWNER, null, "q", 5, false, Set.of("lft"), false, false)))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("'lft'")
        .hasMessageContaining("left, right, sleeping");
    assertThatThrownBy(
            () -> new ContextQuery(AGENT, OWNER, null, "q", 5, false, Set.of(), false, false))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("1-" + ContextQuery.MAX_PROVIDERS);
  }

  @Test
  @DisplayName("a disabled provider may be named: it is reported disabled and recalls nothing")
  void aDisabledProviderMayBeNamed() {
    MemoryStack stack = stack();

    ContextAnswer answer =
        stack.context(
            new ContextQuery(AGENT, OWNER, null, "q", 5, false, Set.of("sleeping"), false, false));

    assertThat(answer.recall()).isEmpty();
    assertThat(answer.providers())
        .extracting(ProviderReport::status)
        .containsExactly(ProviderReport.SKIPPED, ProviderReport.SKIPPED, ProviderReport.DISABLED);
  }
}
