/**
 * The outbox's Spring wiring: the engine itself is the {@code memstack-outbox} module ({@link
 * dev.memstack.outbox}). Here: {@link dev.memstack.host.outbox.OutboxProperties} ({@code
 * memstack.outbox.*}, mapped onto the module's {@link dev.memstack.outbox.OutboxSettings}), {@link
 * dev.memstack.host.outbox.OutboxConfiguration} (which journal, the engine bean), {@link
 * dev.memstack.host.outbox.StackDeliveryPort} (the module's {@link
 * dev.memstack.outbox.DeliveryPort} over the stack's members and their call path), the {@code
 * outbox} health component and the deprecated {@code memstack.stack.sync.*} keys.
 */
package dev.memstack.host.outbox;
