package dev.memstack.host.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.StackMembers;
import dev.memstack.host.testing.Eventually;
import dev.memstack.outbox.DeliveryPort;
import dev.memstack.outbox.OutboxSettings;
import dev.memstack.outbox.OutboxSettingsBuilder;
import dev.memstack.spi.AgentId;
import dev.memstack.spi.OwnerKey;
import dev.memstack.spi.TriggerSource;
import dev.memstack.spi.Turn;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;

/** Turns, settings and waiting for the outbox tests. */
final class Turns {

  /** Default settings with retries after 20 ms up to 100 ms and no shutdown grace. */
  static final OutboxSettings FAST_RETRY = OutboxSettingsBuilder.defaults().fastRetry().build();

  private Turns() {}

  /** {@code settings} with the retry and grace of {@link #FAST_RETRY}. */
  static OutboxSettings fastRetry(OutboxSettings settings) {
    return OutboxSettingsBuilder.from(settings).fastRetry().build();
  }

  static Turn turn(String turnId, String owner) {
    return new Turn(
        turnId,
        AgentId.of("agent-1"),
        OwnerKey.of(owner),
        "conversation-1",
        "user says " + turnId,
        "agent answers " + turnId,
        TriggerSource.API,
        Instant.parse("2026-03-02T10:15:30.123456789Z"));
  }

  static Turn turn(String turnId) {
    return turn(turnId, "user:1");
  }

  static ProviderCalls calls() {
    return new ProviderCalls(new SimpleMeterRegistry());
  }

  /** The members as the outbox reaches them, through a fresh call path. */
  static DeliveryPort port(StackMembers members) {
    return new StackDeliveryPort(members, calls());
  }

  /** Polls an assertion until it holds or the time is up (then its last failure is thrown). */
  static void eventually(Duration limit, Runnable assertion) {
    Eventually.within(limit, assertion);
  }

  static void eventually(Runnable assertion) {
    eventually(Duration.ofSeconds(20), assertion);
  }

  static void isTrue(boolean condition, String what) {
    assertThat(condition).as(what).isTrue();
  }
}
