package dev.memstack.outbox;

import java.util.concurrent.CompletableFuture;

/**
 * An erasure a lane tries before anything else: every pending erasure of the owner up to a
 * position; {@code result} is completed with the attempt.
 */
record Urgent(String owner, long upTo, CompletableFuture<Attempt> result) {}
