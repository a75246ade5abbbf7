package dev.memstack.builtin.extraction;

import dev.memstack.spi.OwnerKey;

/**
 * What a memory job did in one bucket, as every job reports it: the bucket's scope, its owner
 * ({@code null} for a shared bucket), the outcome and why.
 */
public interface JobBucket {

  String scope();

  OwnerKey owner();

  String status();

  String reason();
}
