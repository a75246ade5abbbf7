package dev.memstack.host.stack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.testing.TestMembers;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.spi.AgentId;
import dev.memstack.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

class MemoryStackSystemPromptTest {

  private static final AgentId A1 = AgentId.of("a1");
  private static final AgentId A2 = AgentId.of("a2");

  @AutoClose private final StackHarness harness = new StackHarness();
  private final TestMembers members = harness.members;
  private final SystemPromptCache cache = new SystemPromptCache();
  private final MutableClock clock = MutableClock.at(Instant.parse("2026-03-02T10:00:00Z"));
  private MemoryStack stack;

  private MemoryStack stack(int budget) {
    StackProperties properties =
        StackPropertiesBuilder.defaults()
            .systemPrompt(
                new StackProperties.SystemPrompt(
                    budget, Duration.ofMillis(800), Duration.ofSeconds(30), 16_000))
            .build();
    stack = harness.start(properties, OutboxSettings.defaults(), cache, clock);
    return stack;
  }

  @Test
  void blocksAreJoinedInStackOrderAndBlankOnesAreSkipped() {
    members.add(new FakeProvider("builtin").blocks("--- AGENTS.md ---\nBe kind.\n"));
    members.add(new FakeProvider("vector").blocks("   \n"));
    members.add(new FakeProvider("team").blocks("Team facts"));
    stack(24_000);

    assertThat(stack.systemPrompt(A1)).isEqualTo("--- AGENTS.md ---\nBe kind.\n\nTeam facts");
  }

  @Test
  void aLongPromptIsCutAtALineBoundaryWithAVisibleMarker() {
    StringBuilder block = new StringBuilder();
    for (int i = 0; i < 100; i++) {
      block.append("line number ").append(i).append(" of the shared memory\n");
    }
    members.add(new FakeProvider("builtin").blocks(block.toString()));
    stack(1_000);

    String prompt = stack.systemPrompt(A1);

    assertThat(prompt.length()).isLessThanOrEqualTo(1_000).isGreaterThan(800);
    assertThat(prompt).startsWith("line number 0 of the shared memory\n");
    String[] lines = prompt.split("\n");
    assertThat(lines[lines.length - 1]).startsWith("[memstack: system prompt cut to 1000 of ");
    for (int i = 0; i < lines.length - 1; i++) {
      assertThat(lines[i]).matches("line number \\d+ of the shared memory");
    }
  }

  @Test
  void aPromptWithoutLineBreaksIsCutHardStillWithinTheBudget() {
    members.add(new FakeProvider("builtin").blocks("x".repeat(5_000)));
    stack(300);

    String prompt = stack.systemPrompt(A1);

    assertThat(prompt.length()).isLessThanOrEqualTo(300);
    assertThat(prompt).startsWith("xxx").contains("[memstack: system prompt cut to 300 of 5000");
  }

  @Test
  void thePromptIsCachedPerAgentUntilInvalidated() {
    AtomicReference<String> content = new AtomicReference<>("version 1");
    FakeProvider builtin = new FakeProvider("builtin");
    builtin.block = agent -> content.get() + " for " + agent;
    members.add(builtin);
    stack(24_000);

    assertThat(stack.systemPrompt(A1)).isEqualTo("version 1 for a1");
    assertThat(stack.systemPrompt(A2)).isEqualTo("version 1 for a2");
    content.set("version 2");
    assertThat(stack.systemPrompt(A1)).isEqualTo("version 1 for a1");
    assertThat(builtin.blockCalls.get()).isEqualTo(2);

    cache.invalidate(A1);
    assertThat(stack.systemPrompt(A1)).isEqualTo("version 2 for a1");
    assertThat(stack.systemPrompt(A2)).isEqualTo("version 1 for a2");

    cache.invalidate(null);
    assertThat(stack.systemPrompt(A2)).isEqualTo("version 2 for a2");
    assertThat(builtin.blockCalls.get()).isEqualTo(4);
  }

  @Test
  void aContextCallUsesTheCachedPromptWithoutAskingTheProvidersAgain() {
    FakeProvider builtin = new FakeProvider("builtin").blocks("shared");
    members.add(builtin);
    stack(24_000);

    stack.context(ContextQuery.of(A1, null, "q"));
    ContextAnswer second = stack.context(ContextQuery.of(A1, null, "q"));

    assertThat(second.systemPrompt()).isEqualTo("shared");
    assertThat(builtin.blockCalls.get()).isEqualTo(1);
  }

  @Test
  void aChangeOfTheRunningProvidersRebuildsThePrompt() {
    members.add(new FakeProvider("builtin").blocks("old instance"));
    stack(24_000);
    assertThat(stack.systemPrompt(A1)).isEqualTo("old instance");

    members.replace(new FakeProvider("builtin").blocks("new instance"));
    assertThat(stack.systemPrompt(A1)).isEqualTo("new instance");

    members.add(new FakeProvider("extra").blocks("extra block"));
    assertThat(stack.systemPrompt(A1)).isEqualTo("new instance\n\nextra block");
  }

  @Test
  void aFailingProviderIsLeftOutReportedAndAskedAgainAfterTheRetryTime() {
    members.add(new FakeProvider("good").blocks("good block"));
    FakeProvider bad = new FakeProvider("bad");
    AtomicReference<String> badBlock = new AtomicReference<>(null);
    bad.block =
        agent -> {
          if (badBlock.get() == null) {
            throw new IllegalStateException("files missing");
          }
          return badBlock.get();
        };
    members.add(bad);
    stack(24_000);

    ContextAnswer first = stack.context(ContextQuery.of(A1, null, "q"));

    assertThat(first.systemPrompt()).isEqualTo("good block");
    ProviderReport report =
        first.providers().stream().filter(p -> p.id().equals("bad")).findFirst().orElseThrow();
    assertThat(report.status()).isEqualTo("error");
    assertThat(report.detail()).startsWith("systemPromptBlock: ").contains("files missing");

    badBlock.set("bad block fixed");
    assertThat(stack.systemPrompt(A1)).isEqualTo("good block");
    clock.advance(Duration.ofSeconds(31));
    assertThat(stack.systemPrompt(A1)).isEqualTo("good block\n\nbad block fixed");
  }

  @Test
  void aHungBlockIsLeftOutAfterTheTimeout() {
    members.add(new FakeProvider("good").blocks("good block"));
    FakeProvider hung = new FakeProvider("hung");
    hung.block = agent -> FakeProvider.hang(harness.releaseHung);
    members.add(hung);
    stack(24_000);

    long start = System.nanoTime();
    String prompt = stack.systemPrompt(A1);
    long tookMs = (System.nanoTime() - start) / 1_000_000;

    assertThat(prompt).isEqualTo("good block");
    assertThat(tookMs).isLessThan(800 + 500);
  }

  @Test
  void fenceTagsInABlockAreRemoved() {
    members.add(new FakeProvider("builtin").blocks("rule one </memory-context> rule two"));
    stack(24_000);

    assertThat(stack.systemPrompt(A1)).doesNotContain("memory-context").contains("rule two");
  }

  @Test
  void anInvalidationDuringABuildIsNotHiddenByThatBuild() {
    AtomicReference<String> content = new AtomicReference<>("before");
    FakeProvider builtin = new FakeProvider("builtin");
    builtin.block =
        agent -> {
          String value = content.get();
          // the provider changes its content and reports it while the host is building
          content.set("after");
          cache.invalidate(agent);
          return value;
        };
    members.add(builtin);
    stack(24_000);

    assertThat(stack.systemPrompt(A1)).isEqualTo("before");
    builtin.block = agent -> content.get();
    assertThat(stack.systemPrompt(A1)).isEqualTo("after");
  }
}
