/**
 * The turn outbox: accepted turns and owner erasures wait here for every provider. Read top to
 * bottom: {@link dev.memstack.outbox.TurnOutbox} and {@link dev.memstack.outbox.OwnerEraser} (what
 * the host uses), {@link dev.memstack.outbox.DeliveryPort} (how the outbox reaches providers; the
 * host implements it), {@link dev.memstack.outbox.OutboxSettings}, {@link
 * dev.memstack.outbox.OutboxEngine} (admission, erasure, maintenance, close) with its two delivery
 * strategies ({@code LocalDelivery}, {@code SharedDelivery}) and their lanes ({@code LocalLane},
 * {@code SharedLane}: one queue and thread each, batching, backoff, cursor). No Spring here.
 */
package dev.memstack.outbox;
