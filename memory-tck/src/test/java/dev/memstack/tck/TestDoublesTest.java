package dev.memstack.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.ProviderConfigException;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestDoublesTest {

  private static final AgentId AGENT = AgentId.of("a1");
  private static final OwnerKey OWNER = OwnerKey.of("user:1");

  @Test
  void aMutableClockStandsStillUntilMoved() {
    MutableClock clock = MutableClock.at(Instant.parse("2026-03-02T09:00:00Z"));

    assertThat(clock.instant()).isEqualTo(Instant.parse("2026-03-02T09:00:00Z"));
    assertThat(clock.advance(Duration.ofHours(1))).isEqualTo(Instant.parse("2026-03-02T10:00:00Z"));
    Clock zoned = clock.withZone(java.time.ZoneId.of("Asia/Shanghai"));
    clock.set(Instant.parse("2027-01-01T00:00:00Z"));
    assertThat(zoned.instant()).isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
  }

  @Test
  void aContextCreatesItsDataDirectoryAndNamesConfigKeysByInstance(@TempDir Path root) {
    Path dir = root.resolve("vector");
    TestProviderContext context =
        TestProviderContext.builder()
            .instanceId("vector")
            .config(Map.of("top-k", "x"))
            .dataDir(dir)
            .build();

    assertThat(Files.isDirectory(dir)).isTrue();
    assertThat(context.embedder()).isInstanceOf(HashingEmbedder.class);
    assertThat(context.languageModel().available()).isFalse();
    assertThatThrownBy(() -> context.config().integer("top-k", 5))
        .isInstanceOf(ProviderConfigException.class)
        .hasMessageContaining("memstack.providers.vector.config.top-k");
  }

  @Test
  void aContextRecordsSystemPromptChanges() {
    TestProviderContext context = TestProviderContext.create();

    assertThat(context.systemPromptChangedFor(AGENT)).isFalse();
    context.systemPromptChanged(AgentId.of("other"));
    assertThat(context.systemPromptChangedFor(AGENT)).isFalse();
    context.systemPromptChanged(null);
    assertThat(context.systemPromptChangedFor(AGENT)).isTrue();
    assertThat(context.systemPromptChanges()).containsExactly(AgentId.of("other"), null);

    context.clearSystemPromptChanges();
    assertThat(context.systemPromptChanges()).isEmpty();
    assertThat(context.mutableClock()).isNotNull();
  }

  @Test
  void turnsGetFreshIdsConversationC1AndTheClockTime() {
    MutableClock clock = MutableClock.at(Instant.parse("2026-03-02T09:00:00Z"));
    Turn first = Turns.turn(clock, AGENT, OWNER, "hello", "hi");
    Turn second = Turns.turn(AGENT, OWNER, "hello", "hi");

    assertThat(first.turnId()).isNotEqualTo(second.turnId());
    assertThat(first.conversationId()).isEqualTo("c1");
    assertThat(first.triggerSource()).isEqualTo(TriggerSource.API);
    assertThat(first.time()).isEqualTo(clock.instant());
  }
}
