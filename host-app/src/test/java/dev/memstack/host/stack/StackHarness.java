package dev.memstack.host.stack;

import dev.memstack.host.outbox.StackDeliveryPort;
import dev.memstack.host.provider.ProviderCalls;
import dev.memstack.host.provider.RequestCalls;
import dev.memstack.host.testing.TestMembers;
import dev.memstack.outbox.OutboxEngine;
import dev.memstack.outbox.OutboxSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;

/**
 * What the memory stack's tests build a stack from: fake members, metered provider calls, an
 * in-memory outbox and a latch that releases hung providers. Closing it (after each test) releases
 * them and closes what {@link #start} opened.
 */
final class StackHarness implements AutoCloseable {

  final TestMembers members = new TestMembers();
  final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  final ProviderCalls calls = new ProviderCalls(meters);
  final CountDownLatch releaseHung = new CountDownLatch(1);
  final RecordingConversationLog conversations = new RecordingConversationLog();
  private OutboxEngine outbox;
  private RequestCalls requestCalls;

  /** A stack of the members on {@code clock}; closes the outbox and calls of an earlier start. */
  MemoryStack start(
      StackProperties properties,
      OutboxSettings outboxSettings,
      SystemPromptCache cache,
      Clock clock) {
    closeCalls();
    outbox = OutboxEngine.inMemory(outboxSettings, new StackDeliveryPort(members, calls), clock);
    requestCalls = StackConfiguration.newRequestCalls(calls, members, properties);
    return new MemoryStack(members, requestCalls, cache, outbox, conversations, properties, clock);
  }

  @Override
  public void close() {
    releaseHung.countDown();
    closeCalls();
  }

  private void closeCalls() {
    if (requestCalls != null) {
      requestCalls.close();
    }
    if (outbox != null) {
      outbox.close();
    }
  }
}
